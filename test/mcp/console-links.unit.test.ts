// The console link commit_workspace answers: under the public base URL, path prefix included.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { consoleCommitPage } from '../../src/mcp-server/console-links.js';

const id = '0191f5e0-0000-7000-8000-000000000001';

describe('the console page of a commit', () => {
  it('keeps the path prefix PLATFORM_API_URI carries', () => {
    assert.equal(consoleCommitPage('https://example.org/platform', id), `https://example.org/platform/console/commits/${id}`);
    assert.equal(consoleCommitPage('https://example.org/a/b/', id), `https://example.org/a/b/console/commits/${id}`);
  });

  it('on a base without a prefix, is on its origin', () => {
    assert.equal(consoleCommitPage('http://127.0.0.1:8080', id), `http://127.0.0.1:8080/console/commits/${id}`);
    assert.equal(consoleCommitPage('http://127.0.0.1:8080/', id), `http://127.0.0.1:8080/console/commits/${id}`);
  });

  it('escapes the id as one path segment', () => {
    assert.equal(consoleCommitPage('https://example.org', 'a/b?c'), 'https://example.org/console/commits/a%2Fb%3Fc');
  });
});
