import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { TollgateError } from '../errors.js';

/** Reads a rule-set file: `.json` as JSON, anything else as YAML (which JSON also is). */
export async function readRuleFile(path: string): Promise<{ text: string; document: unknown }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_RULES', `${path}: cannot read the rule file: ${(error as Error).message}`, undefined, {
      cause: error,
    });
  }
  return { text, document: parseRuleText(text, path) };
}

export function parseRuleText(text: string, path: string): unknown {
  try {
    return extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    const kind = extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML';
    throw new TollgateError('ERR_TOLLGATE_INVALID_RULES', `${path}: not valid ${kind}: ${(error as Error).message}`, undefined, {
      cause: error,
    });
  }
}
