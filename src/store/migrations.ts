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
        state text NOT NULL CHECK (state IN ('verifying', 'settling', 'settled', 'pending', 'failed')),
        product text NOT NULL,
        surface text NOT NULL,
        network text NOT NULL,
        scheme text NOT NULL,
        asset text NOT NULL,
        pay_to text NOT NULL,
        amount numeric(78, 0) NOT NULL,
        payer text,
        valid_before bigint,
        owner text NOT NULL,
        delivered boolean NOT NULL DEFAULT false,
        tx_hash text,
        detail text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX payments_unresolved_idx ON payments (updated_at) WHERE state IN ('verifying', 'settling', 'pending');
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
      CREATE TABLE instances (
        id text PRIMARY KEY,
        heartbeat_at timestamptz NOT NULL
      );
      CREATE TABLE quotas (
        wallet text NOT NULL,
        product text NOT NULL,
        day date NOT NULL,
        used integer NOT NULL,
        PRIMARY KEY (wallet, product, day)
      );
      CREATE TABLE used_nonces (
        nonce text PRIMARY KEY,
        used_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX used_nonces_used_at_idx ON used_nonces (used_at);
      CREATE TABLE signing_keys (
        kid text PRIMARY KEY,
        public_jwk text NOT NULL,
        private_jwk text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz
      );
      CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys ((retired_at IS NULL)) WHERE retired_at IS NULL;
      CREATE TABLE registrations (
        id text PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      );
      CREATE TABLE revoked_tokens (
        jti text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      );
      CREATE TABLE proof_nonces (
        nonce text PRIMARY KEY,
        route text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE TABLE hypotheses (
        id bigserial PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        hypothesis text NOT NULL,
        public_claim text NOT NULL,
        observation text NOT NULL,
        opportunity text,
        target text NOT NULL,
        status text NOT NULL CHECK (status IN ('registered', 'evaluated', 'abandoned')),
        verdict text,
        measured_value text,
        horizon_days integer NOT NULL,
        lens text NOT NULL,
        closed_at timestamptz
      );
      CREATE TABLE telemetry_counters (
        metric text NOT NULL,
        dimension text NOT NULL,
        value numeric NOT NULL,
        PRIMARY KEY (metric, dimension)
      );
      CREATE TABLE telemetry_payers (
        payer text PRIMARY KEY,
        first_seen timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE telemetry_meta (
        key text PRIMARY KEY,
        value text NOT NULL
      );
      INSERT INTO telemetry_meta (key, value) VALUES ('observing_since', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
    `,
  },
];

/** Arbitrary constant identifying percall's migration lock. */
export const MIGRATION_LOCK_ID = 4021_0001;
