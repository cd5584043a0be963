// Records keyed by names that requests give (resources, places): a name is looked up among
// a record's own keys only. A plain object also answers the names every object inherits
// ('toString', 'constructor', '__proto__'): a trade of "toString" would find a function
// where a market entry belongs, and its arithmetic NaN gold that every comparison lets by.

const hasOwn = Object.prototype.hasOwnProperty;

/** `record[key]` if the record holds that key itself, else undefined. */
export function own<T>(record: Readonly<Record<string, T>> | null | undefined, key: string | number): T | undefined {
  return record != null && hasOwn.call(record, key) ? record[key] : undefined;
}

/** Sets `record[key]` as the record's own key, also for a key such as '__proto__', which assignment would take as the prototype. */
export function setOwn<T>(record: Record<string, T>, key: string, value: NoInfer<T>): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}
