/** The checker on `config admin` (docs/admin.md): the block is accepted, a path must start with `/`. */
import { expect } from 'chai';
import { findings } from '../../support/findings.js';

const codes = (text: string): [string, string][] => findings(text).map((d) => [d.code, d.at]);

describe('checker: the admin', () => {
  it('accepts the config block', () => {
    expect(codes('config { admin { enabled: false, path: "/back-office", title: "Back office" } }\n')).to.deep.equal(
      [],
    );
  });

  it('refuses a path that does not start with /, and a setting it does not know', () => {
    expect(codes('config { admin { path: "admin" } }\n')).to.deep.equal([['invalid-value', '"admin"']]);
    const message = findings('config { admin { path: "admin" } }\n')[0]!.message;
    expect(message).to.equal(`admin.path must be a path starting with '/' ("/admin")`);
    expect(codes('config { admin { enabeld: true } }\n')).to.deep.equal([['unknown-option', 'enabeld']]);
  });
});
