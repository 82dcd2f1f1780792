/** A large, valid .api file for benchmarks: `resources` resources of about 50 lines each. */
export function generateApi(lines: number): string {
  const out: string[] = [
    'api "Bench" { version: "1.0.0" }',
    'config {',
    '  patch_formats: ["application/merge-patch+json"]',
    '  defaults { pagination_items_per_page: 30 }',
    '  security { jwt { secret_env: "APIDSL_JWT_SECRET" } }',
    '}',
  ];
  let i = 0;
  while (out.length < lines) {
    const r = `Res${i++}`;
    out.push(
      `filter ${r}Order: order { properties: ["id", "title", "price"] }`,
      `filter ${r}Range: range { properties: ["id", "price"] }`,
      `filter ${r}Search: search { properties: { title: "partial", author: "exact" } }`,
      `resource ${r} {`,
      '  // a commented resource with every kind of member',
      '  paginationClientEnabled: true',
      '  paginationItemsPerPage: 20',
      '  description: "A resource generated for the benchmark"',
      '  properties {',
      '    id: int { identifier: true }',
      '    title: string { required: true, maxLength: 255 }',
      '    author: string',
      '    price: number { minimum: 0 }',
      '    tags: string[]',
      '    publishedAt: datetime { nullable: true }',
      '    status: string { enum: ["draft", "published"], default: "draft" }',
      '  }',
      '  operations {',
      `    GetCollection { filters: ["${r}Order", "${r}Range", "${r}Search"] }`,
      `    GetCollection ${r}Cursor {`,
      `      uriTemplate: "/${r.toLowerCase()}/by-cursor"`,
      '      paginationViaCursor: [{ field: "id", direction: "DESC" }]',
      '      paginationPartial: true',
      `      filters: ["${r}Order", "${r}Range"]`,
      '    }',
      '    Post { status: 201 }',
      '    Get',
      '    Put { allowCreate: true }',
      '    Patch',
      '    Delete { security: "is_granted(\'ROLE_ADMIN\') and object.author == user", securityMessage: "Admins only" }',
      `    HttpOperation ${r}Publish {`,
      '      method: "POST"',
      `      uriTemplate: "/${r.toLowerCase()}/{id}/publish"`,
      '      requirements: { id: "\\\\d+" }',
      '      read: true',
      '    }',
      '  }',
      '}',
      '',
    );
  }
  return out.join('\n');
}
