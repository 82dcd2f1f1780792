/** A root field's `description` and `deprecationReason`, from its operation's options. */
import { writtenOption } from '../metadata/options.js';
import type { GraphQlOperationMetadata } from '../metadata/types.js';

export function described(gop: GraphQlOperationMetadata): { description?: string; deprecationReason?: string } {
  const description = writtenOption(gop.operation, 'description');
  const deprecationReason = writtenOption(gop.operation, 'deprecationReason');
  return {
    ...(typeof description === 'string' ? { description } : {}),
    ...(typeof deprecationReason === 'string' ? { deprecationReason } : {}),
  };
}
