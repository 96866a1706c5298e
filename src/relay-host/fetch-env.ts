/**
 * What a download may need of the relay's environment to reach a registry (its address, a proxy, the
 * certificate authorities of a network that inspects TLS): passed into the sandbox for installs and
 * prefetches only, never to a server's run.
 */
const passedThrough = [
  'npm_config_registry',
  'npm_config_cafile',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
  'UV_INDEX_URL',
  'UV_DEFAULT_INDEX',
];

export function fetchEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(passedThrough.filter((k) => env[k]).map((k) => [k, env[k]!]));
}
