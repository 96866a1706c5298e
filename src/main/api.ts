// Production entry point of the API process. The worker runs separately (src/main/worker.ts).
import type { Server } from 'node:http';
import { createApp } from '../api/app.js';
import { consoleFiles } from '../api/routes/console.js';
import { eventStreams } from '../api/routes/event-stream.js';
import { ConfigError, loadConfig } from '../kernel/config/env.js';
import { createLogger } from '../kernel/logging/logger.js';
import { startTracing } from '../observability/tracing.js';
import { bootstrap, closeServices, createServices } from './services.js';

export async function startApi(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const tracing = startTracing(config, 'api', logger);
  const services = createServices(config, logger);
  const admin = await bootstrap(services);
  // The web console: CONSOLE_ASSETS_DIR's build (npm start makes one), else built here, before the first request.
  const { built } = await consoleFiles(config);
  if (built) logger.info({ dir: built.outDir, ms: built.ms, assets: built.assets }, 'console built');
  const server: Server = createApp(services).listen(config.PORT, config.HOST);
  await new Promise((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'EADDRINUSE' ? `port ${config.PORT} is already in use (set PORT)` : err.message)),
    );
  });
  logger.info(
    { url: config.apiUri, mcp: `${config.apiUri}/mcp`, admin_email: admin?.email, admin_credentials_file: admin?.credentialsFile },
    'API listening',
  );
  const rotation = setInterval(
    () =>
      void services.signingKeys
        .rotateIfOlderThan(config.SIGNING_KEY_ROTATION_DAYS)
        .catch((err) => logger.error({ err }, 'signing key rotation failed')),
    3_600_000,
  );
  rotation.unref();
  const stop = () => {
    logger.info('API stopping');
    eventStreams(services).stopAll(); // open event streams would hold server.close() until their next poll
    server.close(() => void Promise.all([closeServices(services), tracing.shutdown()]).then(() => process.exit(0)));
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

startApi().catch((err) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(`API failed to start: ${(err as Error).message}`);
  process.exit(1);
});
