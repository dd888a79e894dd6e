/*
 * A strict reader of the Prometheus text format 0.0.4: every line must be a HELP line, a TYPE
 * line, a sample or empty; every sample must belong to a family declared by a TYPE line before
 * it; label names may not repeat; and every histogram series must have ascending `le` buckets
 * with non-decreasing counts, a `+Inf` bucket equal to its `_count`, and a `_sum`.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name → type (counter, gauge, histogram, summary, untyped). */
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
// Special values as Prometheus reads them (Go's strconv.ParseFloat: any case); prom-client writes `Nan`.
const VALUE = '(?:[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?|[+-]?[Ii][Nn][Ff]|[Nn][Aa][Nn])';
const HELP = new RegExp(`^# HELP (${NAME}) .*$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (${VALUE})(?: -?\\d+)?$`);
const ONE_LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/g;

const unescapeLabel = (value: string) => value.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
const toNumber = (value: string) =>
  /inf$/i.test(value) ? (value.startsWith('-') ? -Infinity : Infinity) : /^nan$/i.test(value) ? NaN : Number(value);

/** Parses `text`; throws naming the first line or series that breaks the format. */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  text.split('\n').forEach((line, index) => {
    const fail = (why: string) => {
      throw new Error(`line ${index + 1} ${why}: ${JSON.stringify(line)}`);
    };
    if (line === '' || HELP.test(line)) return;
    const type = TYPE.exec(line);
    if (type) {
      if (types.has(type[1])) fail('declares a family twice');
      types.set(type[1], type[2]);
      return;
    }
    const match = SAMPLE.exec(line);
    if (!match) return fail('is not Prometheus text format');
    const [, name, labelText = '', value] = match;
    const family = [name, name.replace(/_(bucket|sum|count)$/, '')].find((n) => types.has(n));
    if (!family) fail('has no TYPE line before it');
    const labels: Record<string, string> = {};
    for (const [, key, raw] of labelText.matchAll(ONE_LABEL)) {
      if (key in labels) fail(`repeats label ${key}`);
      labels[key] = unescapeLabel(raw);
    }
    samples.push({ name, labels, value: toNumber(value) });
  });
  checkHistograms(types, samples);
  return { types, samples };
}

function checkHistograms(types: Map<string, string>, samples: Sample[]): void {
  for (const [family, type] of types) {
    if (type !== 'histogram') continue;
    const series = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>();
    const seriesOf = (labels: Record<string, string>) => {
      const { le: _le, ...rest } = labels;
      const key = JSON.stringify(Object.entries(rest).sort());
      let entry = series.get(key);
      if (!entry) series.set(key, (entry = { buckets: [] }));
      return entry;
    };
    for (const s of samples) {
      if (s.name === `${family}_bucket`) {
        if (s.labels.le === undefined) throw new Error(`${family}_bucket without le`);
        seriesOf(s.labels).buckets.push([toNumber(s.labels.le), s.value]);
      } else if (s.name === `${family}_count`) seriesOf(s.labels).count = s.value;
      else if (s.name === `${family}_sum`) seriesOf(s.labels).sum = s.value;
    }
    for (const [key, { buckets, count, sum }] of series) {
      const where = `${family}${key}`;
      if (sum === undefined || count === undefined) throw new Error(`${where} lacks _sum or _count`);
      for (let i = 1; i < buckets.length; i++) {
        if (!(buckets[i][0] > buckets[i - 1][0]) || buckets[i][1] < buckets[i - 1][1]) throw new Error(`${where}: buckets out of order`);
      }
      const last = buckets[buckets.length - 1];
      if (!last || last[0] !== Infinity || last[1] !== count) throw new Error(`${where}: the +Inf bucket is not the count`);
    }
  }
}

/** Fetches `url` and parses it strictly (see parseExposition). */
export async function scrape(url: string): Promise<{ status: number; contentType: string | null; text: string; exposition: Exposition }> {
  const res = await fetch(url);
  const text = await res.text();
  const exposition = res.status === 200 ? parseExposition(text) : { types: new Map(), samples: [] };
  return { status: res.status, contentType: res.headers.get('content-type'), text, exposition };
}

/** The value of the sample `name` whose labels include `labels` (0 when there is none). */
export function sample(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = exposition.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found?.value ?? 0;
}

/** Every label set of the samples named `name`. */
export function labelSets(exposition: Exposition, name: string): Array<Record<string, string>> {
  return exposition.samples.filter((s) => s.name === name).map((s) => s.labels);
}
