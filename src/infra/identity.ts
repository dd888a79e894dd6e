/**
 * Numbers objects by identity: the first object asked for gets 1, the next new one 2, and the same
 * object always the same number, for as long as it lives (a WeakMap holds the numbers, so they keep
 * nothing alive). For cache and share keys that name an object which repeats (a parsed document
 * from the document cache, a model's projection array): a short number costs less to write and
 * compare than the object's contents. Never throws.
 */
export function numberByIdentity<T extends object>(): (value: T) => number {
  const numbers = new WeakMap<T, number>();
  let count = 0;
  return (value) => {
    let number = numbers.get(value);
    if (number === undefined) numbers.set(value, (number = ++count));
    return number;
  };
}
