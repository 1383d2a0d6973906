import { jsonLogger } from '../log.js';
import { createServer } from '../server.js';
import { type ConnectedRedis, connectRedis } from './redis.js';
import { readServerFile } from './server-file.js';

/**
 * `tollgate-server --config <file>`: starts the server the file describes, logging JSON lines
 * on standard output; SIGTERM or SIGINT shut it down gracefully (calls in flight are answered),
 * then Redis is let go and the process exits 0. A file that cannot start a server exits 1.
 */
export async function main(path: string): Promise<void> {
  const logger = jsonLogger();
  let redis: ConnectedRedis | undefined;
  try {
    const { options, source, redis: connection } = await readServerFile(path);
    redis = connection === undefined ? undefined : await connectRedis(connection);
    const server = await createServer({
      ...options,
      config: source,
      logger,
      ...(redis === undefined ? {} : { store: redis.store, storeReady: redis.ready }),
    });
    const stop = (signal: string) => {
      logger.info(`${signal}: shutting down, answering the calls in flight`);
      void server
        .close()
        .then(() => redis?.quit())
        .then(() => {
          logger.info('stopped');
          process.exit(0);
        });
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  } catch (error) {
    logger.error('cannot start', error);
    await redis?.quit();
    process.exitCode = 1;
  }
}
