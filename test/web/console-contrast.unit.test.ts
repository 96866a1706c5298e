// The console's palette (web/console/style.css) reads at WCAG AA in both themes: every text colour on
// every background it is drawn on reaches 4.5:1, computed from the custom properties themselves.
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

const css = readFileSync(new URL('../../web/console/style.css', import.meta.url), 'utf8');

/** The custom properties declared in the first rule whose selector is exactly `selector`. */
function palette(selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  assert.ok(start >= 0, `style.css has a rule for ${selector}`);
  const body = css.slice(start + selector.length + 2, css.indexOf('}', start));
  const vars: Record<string, string> = {};
  for (const [, name, value] of body.matchAll(/(--[a-z0-9-]+):\s*([^;]+);/g)) vars[name!] = value!.trim();
  return vars;
}

const light = palette(':root');
const systemDark = palette(":root:not([data-theme='light'])");
const chosenDark = palette(":root[data-theme='dark']");

/** Relative luminance of a #rrggbb colour (WCAG 2.x). */
function luminance(hex: string): number {
  const match = /^#([0-9a-f]{6})$/i.exec(hex);
  assert.ok(match, `${hex} is a #rrggbb colour`);
  const channel = (i: number) => {
    const c = parseInt(match[1]!.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

// Which text colour is drawn on which background, as style.css uses them.
const backgrounds = ['--bg', '--surface', '--surface-2', '--code-bg'];
const pairs: [text: string, background: string][] = [
  ...['--text', '--muted', '--accent', '--success', '--warning', '--danger', '--diff-hunk'].flatMap((text) =>
    backgrounds.map((bg) => [text, bg] as [string, string]),
  ),
  ['--accent', '--accent-soft'],
  ['--text', '--accent-soft'],
  ['--on-accent', '--accent'],
  ['--surface', '--danger'], // a danger button's hover: its text in the card colour on danger
  ['--diff-add-text', '--diff-add-bg'],
  ['--diff-del-text', '--diff-del-bg'],
];

describe("the console's palette", () => {
  it('computes contrast as WCAG does', () => {
    assert.equal(contrast('#000000', '#ffffff').toFixed(2), '21.00');
    assert.equal(contrast('#777777', '#ffffff').toFixed(2), '4.48'); // the classic near miss
    assert.equal(contrast('#ffffff', '#ffffff'), 1);
  });

  it('declares the same properties in light and dark, and one dark palette for the system and the toggle', () => {
    assert.deepEqual(Object.keys(systemDark).sort(), Object.keys(chosenDark).sort());
    assert.deepEqual(systemDark, chosenDark, "the prefers-color-scheme block and [data-theme='dark'] differ");
    for (const name of Object.keys(chosenDark)) assert.ok(name in light, `${name} has a light value`);
    for (const [text, bg] of pairs) {
      assert.ok(text in light && bg in light, `${text} and ${bg} are declared`);
      assert.ok(text in chosenDark && bg in chosenDark, `${text} and ${bg} have dark values`);
    }
  });

  for (const [name, vars] of [
    ['light', light],
    ['dark', chosenDark],
  ] as const) {
    it(`reaches 4.5:1 for every text/background pair in ${name}`, () => {
      const failures = pairs
        .map(([text, bg]) => ({ text, bg, ratio: contrast(vars[text]!, vars[bg]!) }))
        .filter(({ ratio }) => ratio < 4.5)
        .map(({ text, bg, ratio }) => `${text} ${vars[text]} on ${bg} ${vars[bg]}: ${ratio.toFixed(2)}`);
      assert.deepEqual(failures, []);
    });
  }

  it('tells the themes apart: the dark page is dark and the light page light', () => {
    assert.ok(luminance(light['--bg']!) > 0.8, light['--bg']);
    assert.ok(luminance(chosenDark['--bg']!) < 0.05, chosenDark['--bg']);
  });
});
