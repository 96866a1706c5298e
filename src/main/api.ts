// Production entry point of the API process. The worker runs separately (src/main/worker.ts), or, in
// single-node mode (API_RUNS_WORKER), in this process too (src/main/api-worker.ts).
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApp } from '../api/app.js';
import { consoleFiles } from '../api/routes/console.js';
import { loadArtifactViewer } from '../mcp-server/apps/viewer-html.js';
import { eventStreams } from '../api/routes/event-stream.js';
import { markDraining, reportWorker } from '../operations/readiness.js';
import { ConfigError, loadConfig } from '../kernel/config/env.js';
import { createLogger } from '../kernel/logging/logger.js';
import { startTracing } from '../observability/tracing.js';
import { outboundLine } from '../net/allow-list.js';
import { apiWorkerStopMs, startApiWorker, type ApiWorker } from './api-worker.js';
import { onShutdownSignal } from './graceful.js';
import { trackInFlight } from './in-flight.js';
import { bootstrap, closeServices, createServices } from './services.js';

/** What closing the services and flushing traces may take at most, kept from the grace for them. */
const closingReserveMs = 3_000;

export async function startApi(): Promise<void> {
  const config = loadConfig();
  if (config.SHUTDOWN_DRAIN_DELAY_MS >= config.SHUTDOWN_GRACE_MS) {
    throw new ConfigError('invalid configuration: SHUTDOWN_DRAIN_DELAY_MS: must be less than SHUTDOWN_GRACE_MS');
  }
  const logger = createLogger(config.LOG_LEVEL);
  const tracing = startTracing(config, 'api', logger);
  const services = createServices(config, logger);
  const admin = await bootstrap(services);
  // The web console and the MCP App page (one build): CONSOLE_ASSETS_DIR's (npm start and the image
  // make one), else built here, before the first request. A build without the app page is logged once
  // (resources/read of it answers -32603); the API still starts.
  const { built } = await consoleFiles(config);
  if (built) logger.info({ dir: built.outDir, ms: built.ms, assets: built.assets, app_page: built.appPage }, 'console built');
  await loadArtifactViewer({ config, logger }).catch(() => {});
  // Single-node mode: the worker polls before the API listens, so a ready API can run what it starts.
  // If it ends by itself, /readyz answers 503 at once and the API stops (exit 1).
  const worker: ApiWorker | undefined = config.API_RUNS_WORKER
    ? await startApiWorker(config, services, logger, () => {
        markDraining(services);
        process.kill(process.pid, 'SIGTERM');
      })
    : undefined;
  if (worker) reportWorker(services, () => worker.failure === undefined);
  const server: Server = createApp(services).listen(config.PORT, config.HOST);
  await new Promise((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'EADDRINUSE' ? `port ${config.PORT} is already in use (set PORT)` : err.message)),
    );
  });
  const rotation = setInterval(
    () =>
      void services.signingKeys
        .rotateIfOlderThan(config.SIGNING_KEY_ROTATION_DAYS)
        .catch((err) => logger.error({ err }, 'signing key rotation failed')),
    3_600_000,
  );
  rotation.unref();
  // No request may take longer than this to arrive whole (Node's default allows 300 s): slow clients
  // cannot hold a connection, or a shutdown, open.
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  const drainDelay = config.SHUTDOWN_DRAIN_DELAY_MS;
  const inFlight = trackInFlight(server);
  const drain = async () => {
    markDraining(services); // /readyz answers 503 from now on
    inFlight.closeAfterResponse();
    logger.info({ drain_delay_ms: config.SHUTDOWN_DRAIN_DELAY_MS, in_flight: inFlight.size }, 'API draining');
    if (drainDelay > 0) await sleep(drainDelay); // load balancers see the 503 meanwhile
    const closed = new Promise<void>((resolve) => server.close(() => resolve())); // no new connection; idle keep-alive ones close
    eventStreams(services).stopAll(); // open event streams end (clients reconnect elsewhere with Last-Event-ID)
    logger.info({ in_flight: inFlight.size }, 'API stopped accepting');
    // Every in-flight request answered, or the grace (less what closing takes) is over: then what is
    // left is cut (a client trickling a body would otherwise hold the stop until the deadline's exit 1,
    // and the services and traces would never be closed and flushed).
    const answered = await Promise.race([
      closed.then(() => true),
      sleep(Math.max(0, config.SHUTDOWN_GRACE_MS - closingReserveMs - drainDelay)),
    ]);
    const cut = answered ? 0 : inFlight.size;
    if (!answered) {
      logger.warn({ in_flight: cut }, 'API: requests still open at the end of the grace, cut');
      server.closeAllConnections();
    }
    // The worker drains after the requests (one waiting for a run it executes was answered first), then
    // the services it shares with them close.
    const workerFailed = await worker?.stop().then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    await Promise.all([closeServices(services), tracing.shutdown()]);
    if (workerFailed) throw workerFailed;
    if (!answered) throw new Error(`${cut} request(s) were cut at the end of SHUTDOWN_GRACE_MS`);
  };
  onShutdownSignal({ what: 'API', logger, deadlineMs: config.SHUTDOWN_GRACE_MS + (worker ? apiWorkerStopMs(config) : 0), stop: drain });
  // Said last: whoever waits for it (an orchestrator's log, a test) finds the signal handlers installed.
  logger.info(
    {
      url: config.apiUri,
      mcp: `${config.apiUri}/mcp`,
      admin_email: admin?.email,
      admin_credentials_file: admin?.credentialsFile,
      outbound: outboundLine(config),
    },
    'API listening',
  );
}

startApi().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(`API failed to start: ${(err as Error).message}`);
  process.exit(1);
});
