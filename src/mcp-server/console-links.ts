/**
 * The web console's page for a commit, under the API's public base URL as the client reached it. The
 * console is served by the API, so it sits under the same path prefix that PLATFORM_API_URI may carry
 * (`https://example.org/platform` → `https://example.org/platform/console/commits/{id}`); the base's
 * origin alone would drop that prefix.
 */
export function consoleCommitPage(publicBase: string, commitId: string): string {
  return `${publicBase.replace(/\/+$/, '')}/console/commits/${encodeURIComponent(commitId)}`;
}
