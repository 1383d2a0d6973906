import { describeValue, TollgateError } from '../errors.js';

/**
 * Compiles a path pattern: `/login` (exact), `/users/:id` and `/files/*` (one segment),
 * `/api/**` (any number of segments, none included). A trailing slash is ignored.
 */
export function compilePathPattern(pattern: unknown, field: string): (path: string) => boolean {
  if (typeof pattern !== 'string' || !pattern.startsWith('/')) {
    throw new TollgateError(
      'ERR_TOLLGATE_INVALID_RULES',
      `${field} must be a path pattern starting with / (got ${describeValue(pattern)})`,
      field,
    );
  }
  const segments = trimSlash(pattern).split('/').slice(1);
  let source = '';
  for (const [i, segment] of segments.entries()) {
    if (segment === '**') {
      if (i !== segments.length - 1) throw new TollgateError('ERR_TOLLGATE_INVALID_RULES', `${field}: ** may only end a pattern`, field);
      source += '(?:/.*)?';
    } else if (segment === '*' || /^:[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) {
      source += '/[^/]+';
    } else if (segment.includes('*') || segment.startsWith(':')) {
      throw new TollgateError('ERR_TOLLGATE_INVALID_RULES', `${field}: "${segment}" must be a literal segment, *, ** or :name`, field);
    } else {
      source += `/${segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&')}`;
    }
  }
  const regex = new RegExp(`^${source || '/'}$`);
  return (path) => regex.test(trimSlash(stripQuery(path)));
}

function stripQuery(path: string): string {
  const at = path.search(/[?#]/);
  return at === -1 ? path : path.slice(0, at);
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
