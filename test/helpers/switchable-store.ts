import { StoreUnavailableError } from '../../src/store/sql-store.ts';
import type { Store } from '../../src/store/types.ts';

export interface StoreSwitch {
  /** Pass as `wrapStore`. */
  wrap(store: Store): Store;
  /** From now on every store call fails as an unreachable database does. */
  down(): void;
  up(): void;
  readonly isDown: boolean;
  /** Calls refused while down. */
  readonly refused: number;
}

/**
 * Takes the database away and brings it back, for a store without a socket to cut (the embedded
 * one): while down every method rejects with StoreUnavailableError, and `healthy` turns false after
 * the first refusal until a call succeeds again, as the SQL store reports its own outages.
 */
export function storeSwitch(): StoreSwitch {
  let down = false;
  let failed = false;
  let refused = 0;
  return {
    get isDown() {
      return down;
    },
    get refused() {
      return refused;
    },
    down: () => void (down = true),
    up: () => void (down = false),
    wrap: (store) =>
      new Proxy(store, {
        get(target, prop) {
          if (prop === 'healthy') return !failed && target.healthy;
          const value = Reflect.get(target, prop, target) as unknown;
          // Closing at shutdown is the test's own business, never refused.
          if (typeof value !== 'function' || prop === 'close') return typeof value === 'function' ? value.bind(target) : value;
          return async (...args: unknown[]) => {
            if (down) {
              refused++;
              failed = true;
              throw new StoreUnavailableError('store unavailable: the test took the database away');
            }
            const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            failed = false;
            return result;
          };
        },
      }),
  };
}
