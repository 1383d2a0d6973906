// Publishes a burst of messages for a few tenants: `pnpm produce 50`.
import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';

const count = Number(process.argv[2] ?? 50);
const queue = process.env.QUEUE ?? 'jobs';
const tenants = ['acme', 'globex', 'initech'];

const connection = await amqp.connect(process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
const channel = await connection.createConfirmChannel();
await channel.assertQueue(queue, { durable: false });
for (let i = 0; i < count; i++) {
  const tenant = tenants[i % tenants.length]!;
  channel.sendToQueue(queue, Buffer.from(JSON.stringify({ n: i })), { messageId: randomUUID(), headers: { 'x-tenant': tenant } });
}
await channel.waitForConfirms();
console.log(`published ${count} messages to ${queue}`);
await connection.close();
