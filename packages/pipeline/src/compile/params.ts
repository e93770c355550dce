import type { Dialect } from './dialect';

/** Collects bound parameters while SQL is generated; user values only ever enter SQL through here. */
export class Params {
  readonly values: unknown[] = [];
  constructor(private readonly dialect: Dialect) {}
  add(value: unknown): string {
    this.values.push(value);
    return this.dialect.placeholder(this.values.length);
  }
}
