import { configFromEnv } from './config.js';
import { createApp } from './create-app.js';

const config = configFromEnv();
const app = await createApp(config);
await app.listen(config.port);
console.log(`nestjs-app listening on http://localhost:${config.port} (limits in ${config.redisUrl ? 'Redis' : 'memory'})`);
