// What a desktop MCP client keeps while it signs in with the official TypeScript SDK (v2): its
// registration, tokens and PKCE verifier, in memory. The browser step is the test's: it reads
// `authorizationUrl` and finishes the flow (test/helpers/oauth-browser.ts).
import type { OAuthClientMetadata, OAuthClientProvider } from '@modelcontextprotocol/client';

export class MemoryProvider implements OAuthClientProvider {
  info: any;
  saved: any;
  verifier = '';
  authorizationUrl: URL | null = null;

  /** `clientName` as the consent page shows it; `redirectUrl` a loopback URL no other test file uses. */
  constructor(
    private readonly clientName: string,
    readonly redirectUrl: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: unknown) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: unknown) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}
