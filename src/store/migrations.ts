/**
 * Schema migrations, shared by the embedded store and PostgreSQL: plain PostgreSQL SQL, applied
 * in order under an advisory lock so instances starting together never race.
 */
export const MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE payments (
        payment_key text PRIMARY KEY,
        state text NOT NULL CHECK (state IN ('verifying', 'settling', 'settled', 'pending')),
        product text NOT NULL,
        surface text NOT NULL,
        network text NOT NULL,
        tx_hash text,
        detail text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX payments_state_idx ON payments (state) WHERE state <> 'settled';
      CREATE TABLE ledger (
        id bigserial PRIMARY KEY,
        payment_key text NOT NULL UNIQUE REFERENCES payments (payment_key),
        payer text NOT NULL,
        network text NOT NULL,
        scheme text NOT NULL,
        amount numeric(78, 0) NOT NULL,
        asset text NOT NULL,
        pay_to text NOT NULL,
        tx_hash text NOT NULL,
        product text NOT NULL,
        surface text NOT NULL,
        settled_at timestamptz NOT NULL
      );
      CREATE INDEX ledger_settled_at_idx ON ledger (settled_at);
    `,
  },
];

/** Arbitrary constant identifying percall's migration lock. */
export const MIGRATION_LOCK_ID = 4021_0001;
