// The search page's address and request (web/console/search-api.ts, issue #37): a search read from the
// query string and written back is the same search; the request body carries each control and leaves
// the API's defaults to the API; the snippet marks what the index's analyzer matches (stems, not
// stopwords); "Why this result" adds up to the fused score.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  explain,
  foundBy,
  hasText,
  markdownText,
  readState,
  refinements,
  requestBody,
  searchPath,
  snippet,
  typeLabel,
  type SearchAnswer,
  type SearchHit,
} from '../../web/console/search-api.js';

const answer = (semanticWeight = 0.5): SearchAnswer => ({
  query: 'heat transfer',
  preset: 'balanced',
  results: [],
  retrievers: { lexical: { candidates: 7, weight: 1 }, semantic: { candidates: 12, kept: 8, embedder: 'minilm', weight: semanticWeight } },
  took_ms: 3,
});

const hit = (retrievers: SearchHit['retrievers'], score: number): SearchHit => ({
  id: 'a',
  title: 'A',
  content_type: 'text/plain',
  container: { kind: 'workspace', id: 'w' },
  score,
  retrievers,
});

describe('the search page’s address and request', () => {
  it('reads and writes the same search, defaults left out', () => {
    const path =
      '/console/search?q=heat+transfer&preset=content-heavy&aperture=off&limit=5&candidates=200&workspace=w1&workspace=w2&collection=c1&type=text%2Fplain';
    const state = readState(path.slice(path.indexOf('?')));
    assert.deepEqual(state, {
      q: 'heat transfer',
      preset: 'content-heavy',
      aperture: false,
      numbers: { limit: '5', candidates: '200' },
      workspaces: ['w1', 'w2'],
      collections: ['c1'],
      types: ['text/plain'],
    });
    assert.equal(searchPath(state), path);
    assert.equal(searchPath(readState('?q=wing')), '/console/search?q=wing');
    assert.equal(searchPath(readState('')), '/console/search');
  });

  it('says in words what a search changes from the defaults', () => {
    assert.equal(refinements(readState('?q=wing')), '');
    assert.equal(
      refinements(readState('?q=wing&preset=content-heavy&aperture=off&limit=5&workspace=w&collection=c&type=text%2Fplain&min_keep=2')),
      'content heavy; aperture off; at most 5; 2 places; text/plain; advanced settings',
    );
  });

  it('sends each control, numbers as numbers, and what is not a number as typed for the API to refuse', () => {
    assert.deepEqual(requestBody(readState('?q=+wing+')), { query: 'wing', preset: 'balanced', limit: 10, aperture: { enabled: true } });
    assert.deepEqual(
      requestBody(
        readState('?q=wing&preset=description-first&limit=20&min_score=0.3&min_keep=2&min_candidates=4&flat_spread=0.1&type=text%2Fplain'),
      ),
      {
        query: 'wing',
        preset: 'description-first',
        limit: 20,
        aperture: { enabled: true, min_score: 0.3, min_keep: 2, min_candidates: 4, flat_spread: 0.1 },
        content_types: ['text/plain'],
      },
    );
    // Off, the aperture's settings are not sent.
    assert.deepEqual(requestBody(readState('?q=wing&aperture=off&min_keep=2')).aperture, { enabled: false });
    assert.equal(requestBody(readState('?q=wing&limit=many')).limit, 'many');
    assert.deepEqual(requestBody(readState('?q=wing&collection=c1')).collection_ids, ['c1']);
  });

  it('says how a result was found', () => {
    assert.equal(foundBy(hit({ lexical: { rank: 1, score: 3 }, semantic: { rank: 2, score: 0.5 } }, 0)).key, 'both');
    assert.equal(foundBy(hit({ semantic: { rank: 2, score: 0.5 } }, 0)).label, 'Similar in meaning');
    assert.equal(foundBy(hit({ lexical: { rank: 1, score: 3 } }, 0)).label, 'Matched your words');
    // An imputed semantic rank is no meaning found: its embedding is pending.
    assert.equal(foundBy(hit({ lexical: { rank: 1, score: 3 }, semantic: { rank: 1, score: 0.5, imputed: true } }, 0)).key, 'words');
  });

  it('explains the fused score as the sum of the rankings’ shares', () => {
    const both = explain(hit({ lexical: { rank: 2, score: 2.9701 }, semantic: { rank: 4, score: 0.44277 } }, 1 / 62 + 0.5 / 64), answer());
    assert.match(both.lines[0]!, /^Word match \(BM25\): ranked 2nd of 7, score 2\.970\./);
    assert.match(both.lines[1]!, /^Meaning \(vectors, minilm\): ranked 4th of 8 kept, similarity 0\.443\./);
    assert.match(both.sum, /1 \/ \(60 \+ 2\) \+ 0\.5 \/ \(60 \+ 4\) = 0\.0239\./);
    const words = explain(hit({ lexical: { rank: 11, score: 1 } }, 1 / 71), answer());
    assert.match(words.lines[0]!, /ranked 11th/);
    assert.match(words.lines[1]!, /not among the closest meanings kept/);
    // While embeddings are pending the API scales the semantic weight: the sum is approximate, and said so.
    const pending = explain(hit({ lexical: { rank: 1, score: 1 }, semantic: { rank: 1, score: 0.5 } }, 1 / 61 + 0.25 / 61), answer());
    assert.match(pending.sum, /≈ 0\.0205\. .*counts for less while some embeddings are still being computed/);
  });

  it('cuts a snippet around the first query term, marking the words the analyzer matches', () => {
    const text = `${'lorem ipsum '.repeat(40)}the wing was heated and the heating of the wings was measured. ${'dolor sit '.repeat(40)}`;
    const parts = snippet(text, 'heat of wing');
    const marked = parts.filter((p) => p.mark).map((p) => p.text);
    assert.deepEqual(marked, ['wing', 'heated', 'heating', 'wings'], 'stems match; "of" is a stopword');
    assert.equal(parts[0]!.text, '… ');
    assert.equal(parts.at(-1)!.text, ' …');
    const shown = parts.map((p) => p.text).join('');
    assert.ok(shown.length < 240, `${shown.length} characters`);
    assert.deepEqual(snippet('short text', 'absent'), [{ text: 'short text', mark: false }]);
  });

  it('reads markdown as its words', () => {
    assert.equal(
      markdownText(
        '# Pier survey\n\n*Van Driest*, **bold** and `code` with a [site](https://example.org) and _this_\n- first\n> quoted\nsnake_case stays',
      ),
      'Pier survey\n\nVan Driest, bold and code with a site and this\nfirst\nquoted\nsnake_case stays',
    );
  });

  it('labels types in words, and knows which have text', () => {
    assert.equal(typeLabel('text/markdown; charset=utf-8'), 'Markdown');
    assert.equal(typeLabel('image/png'), 'Image');
    assert.equal(typeLabel('application/x-custom'), 'application/x-custom');
    assert.ok(hasText('text/plain') && hasText('text/markdown; charset=utf-8') && hasText('application/json'));
    assert.ok(!hasText('image/png') && !hasText('application/pdf') && !hasText('application/vnd.platform.chat+json'));
  });
});
