import type {
  DescriptorStatus,
  Duration,
  RateLimitDescriptor,
  RateLimitEntry,
  RateLimitOverride,
  RateLimitRequest,
  RateLimitResponse,
  UnitName,
} from '../service/messages.js';
import { RequestError } from '../service/request-error.js';

/**
 * The proto3 JSON mapping of `RateLimitRequest` and `RateLimitResponse`, as envoyproxy/ratelimit's
 * `/json` endpoint speaks it (https://protobuf.dev/programming-guides/json/): a field by its
 * lowerCamelCase name or its .proto name, null for unset, 64-bit and 32-bit numbers as numbers
 * or decimal strings, enums by name or number; unknown fields are refused, as a proto3 parser does.
 * Out, lowerCamelCase names with default values left out and durations as `"<seconds>s"`.
 */

const UNITS: readonly UnitName[] = ['UNKNOWN', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'];
const MAX_UINT32 = 0xffff_ffff;

type Fields = Record<string, unknown>;

/** Reads a request body parsed from JSON; a `RequestError` names the first field that is wrong. */
export function requestFromJson(body: unknown): RateLimitRequest {
  const fields = message(body, 'request', { domain: 'domain', descriptors: 'descriptors', hitsAddend: 'hits_addend' });
  const request: RateLimitRequest = {};
  if (fields.domain != null) request.domain = text(fields.domain, 'domain');
  if (fields.descriptors != null) request.descriptors = list(fields.descriptors, 'descriptors').map(descriptorFromJson);
  if (fields.hits_addend != null) request.hits_addend = whole(fields.hits_addend, 'hitsAddend', MAX_UINT32);
  return request;
}

function descriptorFromJson(value: unknown, i: number): RateLimitDescriptor {
  const at = `descriptors[${i}]`;
  const fields = message(value, at, { entries: 'entries', limit: 'limit', hitsAddend: 'hits_addend' });
  const descriptor: RateLimitDescriptor = {};
  if (fields.entries != null)
    descriptor.entries = list(fields.entries, `${at}.entries`).map((entry, j) => entryFromJson(entry, `${at}.entries[${j}]`));
  if (fields.limit != null) descriptor.limit = overrideFromJson(fields.limit, `${at}.limit`);
  // A UInt64Value wrapper is written as its bare value.
  if (fields.hits_addend != null)
    descriptor.hits_addend = { value: whole(fields.hits_addend, `${at}.hitsAddend`, Number.MAX_SAFE_INTEGER) };
  return descriptor;
}

function entryFromJson(value: unknown, at: string): RateLimitEntry {
  const fields = message(value, at, { key: 'key', value: 'value' });
  return {
    key: fields.key == null ? '' : text(fields.key, `${at}.key`),
    value: fields.value == null ? '' : text(fields.value, `${at}.value`),
  };
}

function overrideFromJson(value: unknown, at: string): RateLimitOverride {
  const fields = message(value, at, { requestsPerUnit: 'requests_per_unit', unit: 'unit' });
  const override: RateLimitOverride = {};
  if (fields.requests_per_unit != null) override.requests_per_unit = whole(fields.requests_per_unit, `${at}.requestsPerUnit`, MAX_UINT32);
  if (fields.unit != null) override.unit = unit(fields.unit, `${at}.unit`);
  return override;
}

/** The fields of a JSON object under their .proto names; `names` maps each JSON name to its .proto name. */
function message(value: unknown, at: string, names: Record<string, string>): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RequestError(`${at} must be a JSON object`);
  const protoNames = new Set(Object.values(names));
  const fields: Fields = {};
  for (const [name, field] of Object.entries(value)) {
    const protoName = names[name] ?? (protoNames.has(name) ? name : undefined);
    if (protoName === undefined) throw new RequestError(`${at} has no field ${name}`);
    fields[protoName] = field;
  }
  return fields;
}

function text(value: unknown, at: string): string {
  if (typeof value !== 'string') throw new RequestError(`${at} must be a string`);
  return value;
}

function list(value: unknown, at: string): unknown[] {
  if (!Array.isArray(value)) throw new RequestError(`${at} must be a list`);
  return value;
}

function whole(value: unknown, at: string, max: number): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0 || number > max)
    throw new RequestError(`${at} must be a whole number from 0 to ${max}`);
  return number;
}

function unit(value: unknown, at: string): UnitName {
  const found = typeof value === 'number' ? UNITS[value] : UNITS.find((name) => name === value);
  if (found === undefined) throw new RequestError(`${at} must be one of ${UNITS.join(', ')}`);
  return found;
}

/** The response in the proto3 JSON mapping. */
export function responseToJson(response: RateLimitResponse): Fields {
  const json: Fields = { overallCode: response.overall_code };
  if (response.statuses.length > 0) json.statuses = response.statuses.map(statusToJson);
  if (response.response_headers_to_add.length > 0)
    json.responseHeadersToAdd = response.response_headers_to_add.map(({ key, value }) => ({ key, value }));
  return json;
}

function statusToJson(status: DescriptorStatus): Fields {
  const json: Fields = { code: status.code };
  const limit = status.current_limit;
  if (limit !== undefined) {
    const current: Fields = {};
    if (limit.name) current.name = limit.name;
    if (limit.requests_per_unit !== 0) current.requestsPerUnit = limit.requests_per_unit;
    if (limit.unit !== 'UNKNOWN') current.unit = limit.unit;
    json.currentLimit = current;
  }
  if (status.limit_remaining !== 0) json.limitRemaining = status.limit_remaining;
  if (status.duration_until_reset !== undefined) json.durationUntilReset = durationToJson(status.duration_until_reset);
  return json;
}

/** `google.protobuf.Duration` as JSON: seconds with 0, 3, 6 or 9 fractional digits and an `s`. */
function durationToJson({ seconds, nanos }: Duration): string {
  if (nanos === 0) return `${seconds}s`;
  const digits = String(nanos).padStart(9, '0');
  const fraction = digits.endsWith('000000') ? digits.slice(0, 3) : digits.endsWith('000') ? digits.slice(0, 6) : digits;
  return `${seconds}.${fraction}s`;
}
