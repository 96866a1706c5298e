/** The error codes of RFC 6749 §5.2 and §4.1.2.1, RFC 7591 §3.2.2 and RFC 8707 §2. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata';

/** A refusal the OAuth endpoints answer in OAuth's own shape: `{ error, error_description }`. */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }

  get status(): number {
    return this.code === 'invalid_client' ? 401 : 400;
  }
}
