/** A header the upstream sent that Tollgate did not follow. */
export interface IgnoredHeader {
  header: string;
  value: string;
  /** `malformed`: not the field's syntax; `negative`: a time in the past or below 0; `too-long`: a pause beyond `maxPause`. */
  reason: 'malformed' | 'negative' | 'too-long';
}
