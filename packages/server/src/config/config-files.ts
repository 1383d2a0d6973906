import { type FSWatcher, watch } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { readRuleFile, TollgateError } from '@tollgate/core';
import type { ConfigFile } from './rate-limit-config.js';
import { noDomains } from './rate-limit-config.js';

const CONFIG_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** Where the config comes from: files, and folders whose every .yaml, .yml and .json file is one (as envoyproxy/ratelimit reads its runtime folder). */
export interface ConfigSource {
  readonly name: string;
  /** The files' texts (to tell a change) and documents; rejects with a coded error. */
  read(): Promise<{ text: string; files: ConfigFile[] }>;
  /** Calls `changed` when a file may have changed (added, edited, replaced, removed); returns a function that stops. */
  watch(changed: () => void, failed: (error: TollgateError) => void): () => void;
}

export function configFiles(paths: readonly string[]): ConfigSource {
  const absolute = paths.map((path) => resolve(path));
  return {
    name: absolute.join(', '),
    async read() {
      const files = (await Promise.all(absolute.map(expand))).flat();
      if (files.length === 0) throw noDomains(absolute.join(', '));
      const read = await Promise.all(files.map(async (file) => ({ file, ...(await readRuleFile(file)) })));
      return {
        text: read.map(({ file, text }) => `${file}\0${text}`).join('\0'),
        files: read.map(({ file, document }) => ({ name: file, document })),
      };
    },
    watch(changed, failed) {
      const watchers: FSWatcher[] = [];
      for (const path of absolute) {
        // The folder, not the file: editors and symlink swaps replace the file, which would end a watch on it.
        const folder = isConfigFile(path) ? dirname(path) : path;
        const only = folder === path ? undefined : basename(path);
        const watcher = watch(folder, { persistent: false }, (_event, name) => {
          if (only === undefined || name === null || name === only) changed();
        });
        watcher.on('error', (error) =>
          failed(
            new TollgateError('ERR_TOLLGATE_INVALID_RULES', `${path}: watching failed: ${error.message}`, undefined, { cause: error }),
          ),
        );
        watchers.push(watcher);
      }
      return () => {
        for (const watcher of watchers) watcher.close();
      };
    },
  };
}

function isConfigFile(path: string): boolean {
  return CONFIG_EXTENSIONS.has(extname(path).toLowerCase());
}

/** A file as itself; a folder as its config files, in name order (dot files left out). */
async function expand(path: string): Promise<string[]> {
  let isFolder: boolean;
  try {
    isFolder = (await stat(path)).isDirectory();
  } catch (error) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_RULES', `${path}: cannot read the config: ${(error as Error).message}`, undefined, {
      cause: error,
    });
  }
  if (!isFolder) return [path];
  const names = await readdir(path);
  return names
    .filter((name) => !name.startsWith('.') && isConfigFile(name))
    .sort()
    .map((name) => join(path, name));
}
