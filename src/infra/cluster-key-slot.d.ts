// The package ships no types; it is the slot function ioredis itself uses (Redis's CRC16 of the key's hash tag).
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0 to 16383) of `key`: the CRC16 of its hash tag (`{…}`) when it has one, else of the whole key. */
  function calculateSlot(key: string): number;
  export = calculateSlot;
}
