/** The `calls=` of one command in INFO commandstats text (`function|load` for a subcommand); 0 when absent. */
export function commandCalls(commandstats: string, command: string): number {
  return Number(new RegExp(`^cmdstat_${command.replace('|', '\\|')}:calls=(\\d+)`, 'm').exec(commandstats)?.[1] ?? 0);
}

/** Calls of the decision driver in INFO commandstats text, however sent: FCALL, EVALSHA or EVAL. */
export function driverCalls(commandstats: string): number {
  return ['fcall', 'evalsha', 'eval'].reduce((sum, command) => sum + commandCalls(commandstats, command), 0);
}
