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

/** The Store methods that hand out a part of the store (synchronously), each part's calls guarded in turn. */
const STORE_PARTS = new Set<string | symbol>(['channelStorage', 'bazaarSnapshots', 'settlementVerifications', 'toolUsage', 'operatorLedger'] satisfies (keyof Store)[]);

/**
 * Takes the database away and brings it back, for a store without a socket to cut (the embedded
 * one): while down every method rejects with StoreUnavailableError, and `healthy` turns false after
 * the first refusal until a call succeeds again, as the SQL store reports its own outages.
 */
export function storeSwitch(): StoreSwitch {
  let down = false;
  let failed = false;
  let refused = 0;
  /** `method` of `target`, refused while the database is away. */
  const guarded =
    (target: object, method: (...a: unknown[]) => Promise<unknown>) =>
    async (...args: unknown[]) => {
      if (down) {
        refused++;
        failed = true;
        throw new StoreUnavailableError('store unavailable: the test took the database away');
      }
      const result = await method.apply(target, args);
      failed = false;
      return result;
    };
  /** Every async method of `target` guarded; `healthy` false after a refusal; `close` and `sync` as they are. */
  const switched = <T extends object>(target: T, passThrough: (prop: string | symbol) => boolean): T =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === 'healthy') return !failed && (t as { healthy?: boolean }).healthy;
        const value = Reflect.get(t, prop, t) as unknown;
        if (typeof value !== 'function') return value;
        // The store's parts (Store's synchronous getters) are made once; their calls go to the same database.
        if (STORE_PARTS.has(prop)) return () => switched((value as () => object).call(t), () => false);
        // Closing at shutdown is the test's own business, never refused.
        if (passThrough(prop)) return value.bind(t);
        return guarded(t, value as (...a: unknown[]) => Promise<unknown>);
      },
    });
  return {
    get isDown() {
      return down;
    },
    get refused() {
      return refused;
    },
    down: () => void (down = true),
    up: () => void (down = false),
    wrap: (store) => switched(store, (prop) => prop === 'close'),
  };
}
