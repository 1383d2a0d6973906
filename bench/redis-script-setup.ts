// What one call of the Redis script pays before it decides anything: the script is run whole at
// every EVALSHA, so the prelude, every algorithm's definitions and the driver's are built again
// per call, which a batch of many decisions shares and a call of one decision pays alone. Script
// time per call (INFO commandstats, lowest of 5 rounds of 3,000 calls, one at a time) of
// `return 1`, of the script's definitions with every algorithm, and with GCRA's alone.
// Usage: pnpm --filter @tollgate/bench bench:redis-script-setup
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RedisProcess } from '@tollgate/testing';
import { Redis } from 'ioredis';

const src = fileURLToPath(new URL('../packages/core/src/', import.meta.url));
const read = (path: string) => readFileSync(`${src}${path}`, 'utf8');
const preludeLua = read('lua/prelude.lua');
const driverLua = read('lua/driver.lua');
/** Every algorithm's Lua file (algorithms/<name>/<name>.lua), as lua/script.ts puts each in the script. */
const algorithms = readdirSync(`${src}algorithms`).filter((name) => existsSync(`${src}algorithms/${name}/${name}.lua`));
const algorithmLua = (name: string) => read(`algorithms/${name}/${name}.lua`);
const scoped = (lua: string) => `do\n${lua}\nend`;
/** The driver defined as lua/script.ts defines it (its helpers and run_batch), but not run. */
const driverDefined = `${driverLua}\nreturn 1`;
const SCRIPTS: Record<string, string> = {
  'return 1': 'return 1',
  'prelude, every algorithm, driver (defined, not run)': [
    preludeLua,
    ...algorithms.map((name) => scoped(algorithmLua(name))),
    driverDefined,
  ].join('\n'),
  'prelude, gcra alone, driver (defined, not run)': [preludeLua, scoped(algorithmLua('gcra')), driverDefined].join('\n'),
};

const server = await RedisProcess.start();
const client = new Redis(server.url);
try {
  const best = new Map<string, number>();
  const shas = await Promise.all(Object.values(SCRIPTS).map((lua) => client.script('LOAD', lua) as Promise<string>));
  for (let round = 0; round < 5; round++) {
    for (const [at, name] of Object.keys(SCRIPTS).entries()) {
      await client.config('RESETSTAT');
      for (let i = 0; i < 3000; i++) await client.evalsha(shas[at]!, 0);
      const [, calls, micros] = (await client.info('commandstats')).match(/cmdstat_evalsha:calls=(\d+),usec=(\d+)/)!;
      best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, Number(micros) / Number(calls)));
    }
  }
  console.log('| script | script µs per call |\n| --- | ---: |');
  for (const [name, micros] of best) console.log(`| ${name} | ${micros.toFixed(2)} |`);
} finally {
  client.disconnect();
  await server.stop();
}
