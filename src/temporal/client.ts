import { readFileSync } from 'node:fs';
import { Client, Connection, type ConnectionLike, type ConnectionOptions } from '@temporalio/client';
import type { Config } from '../kernel/config/env.js';
import { clientTracingInterceptors } from '../observability/temporal-tracing.js';
import { platformDataConverter } from './payload-codec.js';

/** Connection options for any Temporal: the dev server, a self-hosted cluster (mTLS) or Temporal Cloud (API key). */
export function temporalConnectionOptions(config: Config): ConnectionOptions {
  const mtls =
    config.TEMPORAL_TLS_CERT_PATH && config.TEMPORAL_TLS_KEY_PATH
      ? { clientCertPair: { crt: readFileSync(config.TEMPORAL_TLS_CERT_PATH), key: readFileSync(config.TEMPORAL_TLS_KEY_PATH) } }
      : undefined;
  const tls = mtls ?? (config.TEMPORAL_TLS || config.TEMPORAL_API_KEY ? true : undefined);
  return { address: config.temporalAddress, tls, apiKey: config.TEMPORAL_API_KEY };
}

/** Lazy: the API starts (and reports not ready) while Temporal is unreachable. */
export function createTemporalClient(config: Config): Client {
  const connection = Connection.lazy(temporalConnectionOptions(config));
  return platformClient(config, connection);
}

/** A client on a connection, with the platform's data converter (the payload codec) and tracing interceptors. */
export function platformClient(config: Config, connection: ConnectionLike): Client {
  return new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: platformDataConverter(config),
    interceptors: clientTracingInterceptors(),
  });
}

/**
 * For readiness checks only: no retry interceptor, so a probe fails fast within its deadline and
 * leaves no retry timer behind when the process closes the connection.
 */
export function createTemporalProbe(config: Config): Connection {
  return Connection.lazy({ ...temporalConnectionOptions(config), interceptors: [] });
}
