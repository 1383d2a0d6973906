// A consumer process: drains QUEUE at the shared global and per-tenant rates, acking each message
// only once its work is done. Run several: they share the limits through Redis.
import { RedisStore } from '@tollgate/core';
import amqp, { type Channel, type ConsumeMessage } from 'amqplib';
import { Redis } from 'ioredis';
import { createThrottle } from './throttle.js';
import { doOnce } from './work.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const queue = env('QUEUE', 'jobs');
const name = env('CONSUMER', `consumer-${process.pid}`);
const prefix = env('PREFIX', 'jobs');
// Test hook: exit abruptly after doing this many jobs, before acking the last one.
const crashAfter = Number(env('CRASH_AFTER', '0'));

const redis = new Redis(env('REDIS_URL', 'redis://127.0.0.1:6379'));
const throttle = createThrottle(new RedisStore({ client: redis }), prefix, {
  globalPerSecond: Number(env('GLOBAL_PER_SECOND', '20')),
  defaultTenantPerSecond: Number(env('TENANT_PER_SECOND', '20')),
  tenantPerSecond: JSON.parse(env('TENANT_RATES', '{}')) as Record<string, number>,
});
const keys = { doneKey: `${prefix}:done`, effectsKey: `${prefix}:effects` };
let done = 0;

/** The tenant named by the `x-tenant` header; one the header cannot spoof into another key space. */
function tenantOf(message: ConsumeMessage): string {
  const tenant = message.properties.headers?.['x-tenant'];
  return typeof tenant === 'string' && /^[\w.-]{1,64}$/.test(tenant) ? tenant : 'unknown';
}

async function handle(channel: Channel, message: ConsumeMessage): Promise<void> {
  const id = message.properties.messageId;
  if (typeof id !== 'string' || id === '') {
    channel.reject(message, false); // no id, no way to do it once: dead-letter it
    return;
  }
  try {
    const tenant = tenantOf(message);
    await redis.hincrby(`${prefix}:deliveries`, id, 1);
    await throttle(tenant);
    await doOnce(redis, keys, { id, tenant, consumer: name });
    if (crashAfter > 0 && ++done >= crashAfter) process.exit(1);
    channel.ack(message);
  } catch (error) {
    console.error(`${name}: ${id} failed, back to the queue:`, error);
    channel.nack(message, false, true);
  }
}

const connection = await amqp.connect(env('AMQP_URL', 'amqp://guest:guest@127.0.0.1:5672'));
const channel = await connection.createChannel();
await channel.assertQueue(queue, { durable: false });
// Messages held at once by this process; they wait for their turn concurrently, so one slow tenant does not block the others.
await channel.prefetch(Number(env('PREFETCH', '50')));
await channel.consume(queue, (message) => {
  if (message) void handle(channel, message);
});
console.log(`${name} consuming ${queue}`);

const stop = async () => {
  await channel.close().catch(() => {});
  await connection.close().catch(() => {});
  redis.disconnect();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
