import type { ExecutionContext } from '@nestjs/common';
import type { ApplicationConfig, Reflector } from '@nestjs/core';

// The metadata keys of `@UseFilters` and `@Catch` (`@nestjs/common/constants`).
const EXCEPTION_FILTERS_METADATA = '__exceptionFilters__';
const FILTER_CATCH_EXCEPTIONS = '__filterCatchExceptions__';

// biome-ignore lint/complexity/noBannedTypes: `@Catch` records exception classes as plain constructors
type ExceptionType = Function;

/** Whether a filter (a class or an instance, as `@UseFilters` and `useGlobalFilters` take them) catches `exception`. */
function catches(filter: unknown, exception: Error): boolean {
  const type = typeof filter === 'function' ? filter : (filter as object | null)?.constructor;
  if (typeof type !== 'function') return false;
  const caught = (Reflect.getMetadata(FILTER_CATCH_EXCEPTIONS, type) as ExceptionType[] | undefined) ?? [];
  return caught.length === 0 || caught.some((exceptionType) => exception instanceof exceptionType);
}

/**
 * Whether one of the app's exception filters would render `exception` thrown on this route: one
 * `@UseFilters` put on the handler or its controller, or a global one (`app.useGlobalFilters`,
 * `APP_FILTER`). Nest's own filter, which renders what no filter of the app catches, is not one of them.
 */
export function caughtByAppFilter(context: ExecutionContext, exception: Error, config: ApplicationConfig, reflector: Reflector): boolean {
  const routeFilters = [context.getHandler(), context.getClass()].flatMap(
    (target) => reflector.get<unknown[] | undefined>(EXCEPTION_FILTERS_METADATA, target) ?? [],
  );
  const globalFilters = [...config.getGlobalFilters(), ...config.getGlobalRequestFilters().map((wrapper) => wrapper.metatype)];
  return [...routeFilters, ...globalFilters].some((filter) => catches(filter, exception));
}
