// The one HTML kit (src/kernel/html.ts): what the sign-in, consent and connection pages put in their
// markup cannot end an attribute, open a tag or start an entity, whatever text a person, a client
// registration or an external provider supplied.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, htmlPage } from '../../src/kernel/html.js';
import { connectionOutcomePage, errorPage } from '../../src/presenters/sign-in-pages.js';

const hostile = `"><script>alert('x')</script><img src=x onerror=\`y\`>&amp;`;
const decode = (s: string) => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));

describe('escapeHtml', () => {
  it('leaves none of & < > " \' ` = as it is', () => {
    const out = escapeHtml(hostile);
    assert.doesNotMatch(out, /[<>"'`=]/);
    // Every & left is one the escaper wrote: the start of a numeric reference.
    assert.doesNotMatch(out, /&(?!#\d+;)/);
  });

  it('changes nothing else, and decodes back to the text', () => {
    assert.equal(escapeHtml('Plain text, 100% ok: ü → ✓'), 'Plain text, 100% ok: ü → ✓');
    assert.equal(decode(escapeHtml(hostile)), hostile);
  });
});

describe('htmlPage', () => {
  it('escapes the title and the body attributes, not the body markup', () => {
    const page = htmlPage({ title: hostile, style: 'p{}', body: '<p>ok</p>', bodyAttributes: { 'data-x': hostile } });
    assert.doesNotMatch(page, /<script/);
    assert.match(page, /<body data-x="[^"<>]*"><p>ok<\/p><\/body>/);
    assert.equal(page.match(/<title>([^<]*)<\/title>/)?.[1], escapeHtml(hostile));
  });

  it('keeps text out of the markup of every page built with it', () => {
    for (const page of [
      connectionOutcomePage({ outcome: 'failed', title: hostile, message: hostile }),
      errorPage(hostile, hostile, `https://client.example/cb?error=${hostile}`),
    ]) {
      assert.doesNotMatch(page, /<script|<img/);
      // Each attribute value is one quoted string: nothing ended it early.
      for (const attr of page.match(/ [a-z-]+="[^"]*"/g) ?? []) assert.doesNotMatch(attr.slice(attr.indexOf('"') + 1, -1), /[<>'`]/);
    }
    assert.match(connectionOutcomePage({ outcome: 'connected', title: 'Connected', message: 'Done.' }), /data-outcome="connected"/);
  });
});
