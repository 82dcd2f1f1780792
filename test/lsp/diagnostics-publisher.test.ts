/**
 * The diagnostics publisher in process: a result computed for a version that is no longer
 * the document's by the time it is ready is dropped; changes arriving faster than an analysis
 * takes are checked once, and slower ones each at once.
 */
import { expect } from 'chai';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { PublishDiagnosticsParams } from 'vscode-languageserver';
import { analyse, type Analysis } from '../../lsp/analysis.js';
import { DiagnosticsPublisher } from '../../lsp/diagnostics.js';

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Waits until `done()` (the first analysis may take long on a loaded machine), at most 10 s. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await wait(10);
}

/** `millis`: what each analysis reports having taken (the publisher waits that long between quick changes). */
function setup(onAnalysis: (doc: { current: TextDocument }) => void = () => undefined, millis?: number) {
  const doc = {
    current: TextDocument.create('file:///x.api', 'apidsl', 1, 'resource Book { properties { title: strin } }\n'),
  };
  const sent: PublishDiagnosticsParams[] = [];
  let analyses = 0;
  const store = {
    get: () => doc.current,
    analysis: (): Analysis => {
      analyses++;
      const a = analyse(doc.current);
      onAnalysis(doc);
      return millis === undefined ? a : { ...a, millis };
    },
  };
  const publisher = new DiagnosticsPublisher(
    { sendDiagnostics: async (p: PublishDiagnosticsParams) => void sent.push(p) },
    store as never,
    () => undefined,
  );
  return { doc, sent, publisher, analyses: () => analyses };
}

describe('lsp diagnostics publisher', () => {
  it('publishes the diagnostics of the current version with that version', async () => {
    const { sent, publisher } = setup();
    publisher.schedule('file:///x.api', true);
    await until(() => sent.length > 0);
    expect(sent).to.have.length(1);
    expect(sent[0].version).to.equal(1);
    expect(sent[0].diagnostics.map((d) => d.code)).to.deep.equal(['unknown-type']);
  });

  it('drops a result whose version was overtaken while it was computed', async () => {
    const { sent, publisher, analyses } = setup((doc) => {
      if (doc.current.version !== 1) return;
      // A change arrives while version 1 is being checked, and is scheduled as the server does on a change.
      doc.current = TextDocument.update(doc.current, [{ text: 'resource Book { properties { title: string } }\n' }], 2);
      publisher.schedule('file:///x.api');
    });
    publisher.schedule('file:///x.api', true);
    // Version 2's result comes after version 1's would have (its analysis starts after version 1's ended), so
    // once it is here, version 1's has been dropped or sent: only version 2's may be.
    await until(() => sent.some((p) => p.version === 2));
    expect(analyses()).to.equal(2);
    expect(sent.map((p) => [p.version, p.diagnostics.length])).to.deep.equal([[2, 0]]);
  });

  it('checks a burst of changes arriving faster than an analysis takes once, after the last', async () => {
    // Each analysis reports 2 s: the changes below, a few milliseconds apart, all fall within that.
    const { doc, sent, publisher, analyses } = setup(undefined, 2000);
    publisher.schedule('file:///x.api', true);
    await until(() => sent.length > 0);
    expect(analyses()).to.equal(1);
    for (let v = 2; v <= 6; v++) {
      doc.current = TextDocument.update(
        doc.current,
        [{ text: `resource Book { properties { title: string${'x'.repeat(v % 2)} } }\n` }],
        v,
      );
      publisher.schedule('file:///x.api');
      await wait(1);
    }
    // Every schedule cleared the timer of the one before: the one left is the last change's.
    await until(() => sent.length > 1);
    expect(analyses()).to.equal(2);
    expect(sent.map((p) => p.version)).to.deep.equal([1, 6]);
  });

  it('checks each change when changes come slower than an analysis takes (no fixed debounce)', async () => {
    const { doc, sent, publisher, analyses } = setup(undefined, 0);
    for (let v = 2; v <= 4; v++) {
      doc.current = TextDocument.update(
        doc.current,
        [{ text: `resource Book { properties { title: string${'x'.repeat(v % 2)} } }\n` }],
        v,
      );
      publisher.schedule('file:///x.api');
      // The next change comes once this one is checked (slower than its analysis, however long that took).
      await until(() => sent.some((p) => p.version === v));
    }
    expect(analyses()).to.equal(3);
    expect(sent.map((p) => p.version)).to.deep.equal([2, 3, 4]);
  });

  it('replaces the diagnostics of an earlier text when the analysis of the current one fails', async () => {
    const doc = TextDocument.create('file:///x.api', 'apidsl', 3, 'resource Book {}\n');
    const sent: PublishDiagnosticsParams[] = [];
    const store = {
      get: () => doc,
      analysis: (): Analysis => {
        throw new RangeError('Maximum call stack size exceeded');
      },
    };
    const logged: string[] = [];
    const publisher = new DiagnosticsPublisher(
      { sendDiagnostics: async (p: PublishDiagnosticsParams) => void sent.push(p) },
      store as never,
      (m) => void logged.push(m),
    );
    publisher.schedule('file:///x.api', true);
    await until(() => sent.length > 0);
    expect(sent).to.have.length(1);
    expect(sent[0].version).to.equal(3);
    expect(sent[0].diagnostics).to.have.length(1);
    expect(sent[0].diagnostics[0].message).to.contain('could not check this text');
    expect(logged.join('\n')).to.contain('RangeError');
  });
});
