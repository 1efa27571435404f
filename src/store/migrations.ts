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
  {
    version: 2,
    sql: `
      ALTER TABLE proof_nonces ADD COLUMN client text NOT NULL DEFAULT '';
      ALTER TABLE proof_nonces ADD COLUMN issued_at timestamptz NOT NULL DEFAULT now();
      ALTER TABLE proof_nonces ADD COLUMN held_until timestamptz;
      CREATE INDEX proof_nonces_client_idx ON proof_nonces (client, route, expires_at);
      CREATE INDEX proof_nonces_expires_idx ON proof_nonces (expires_at);
      CREATE INDEX registrations_expires_idx ON registrations (expires_at);
      CREATE INDEX revoked_tokens_expires_idx ON revoked_tokens (expires_at);
      CREATE TABLE rate_limits (
        bucket text NOT NULL,
        client text NOT NULL,
        window_start timestamptz NOT NULL,
        hits integer NOT NULL,
        PRIMARY KEY (bucket, client, window_start)
      );
      CREATE INDEX rate_limits_window_idx ON rate_limits (window_start);
      ALTER TABLE payments ADD COLUMN response text;
      ALTER TABLE payments ADD COLUMN redeemable_until timestamptz;
      CREATE INDEX payments_response_idx ON payments (redeemable_until) WHERE response IS NOT NULL;
      ALTER TABLE ledger ADD COLUMN missing_on_chain_at timestamptz;
      CREATE TABLE idempotency (
        id text PRIMARY KEY,
        payment_key text NOT NULL,
        request_digest text NOT NULL,
        response text,
        settlement text,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX idempotency_expires_idx ON idempotency (expires_at);
    `,
  },
  {
    version: 3,
    sql: `
      ALTER TABLE payments ADD COLUMN recent_blockhash text;
    `,
  },
  {
    version: 4,
    sql: `
      ALTER TABLE payments ADD COLUMN delivery_confirmed_at timestamptz;
      UPDATE payments SET delivery_confirmed_at = updated_at WHERE delivered;
    `,
  },
  {
    // Rate-limit windows start at each client's first request instead of on the clock's minute or
    // hour, so a burst across a boundary cannot take twice the limit: one row per bucket and client.
    version: 5,
    sql: `
      DELETE FROM rate_limits r USING rate_limits newer
        WHERE r.bucket = newer.bucket AND r.client = newer.client AND r.window_start < newer.window_start;
      ALTER TABLE rate_limits DROP CONSTRAINT rate_limits_pkey;
      ALTER TABLE rate_limits ADD PRIMARY KEY (bucket, client);
    `,
  },
  {
    // x402 batch-settlement channels (store/channel-storage.ts), one row per channel shared by all
    // instances. `record` is the SDK's Channel as JSON text, kept byte for byte (jsonb would reorder
    // keys and refuse some strings); the typed columns are copies of its fields for queries
    // (totals, idle channels, pending withdrawals), NULL where the field is not a plain integer.
    version: 6,
    sql: `
      CREATE TABLE batch_channels (
        channel_id text COLLATE "C" PRIMARY KEY CHECK (channel_id ~ '^0x[0-9a-f]{64}$'),
        record text NOT NULL,
        payer text,
        charged_cumulative numeric(78, 0),
        total_claimed numeric(78, 0),
        balance numeric(78, 0),
        last_request_ms bigint,
        withdraw_requested_at bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX batch_channels_last_request_idx ON batch_channels (last_request_ms);
      CREATE INDEX batch_channels_withdraw_idx ON batch_channels (withdraw_requested_at) WHERE withdraw_requested_at > 0;
    `,
  },
  {
    version: 7,
    sql: `
      -- Background work one instance does at a time (batch claims): the holder and until when.
      CREATE TABLE leases (
        name text PRIMARY KEY,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      -- Every on-chain transaction of batch-settlement channels the service sent: claims, settles, refunds.
      CREATE TABLE batch_transactions (
        id bigserial PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('claim', 'settle', 'refund')),
        network text NOT NULL,
        tx_hash text NOT NULL,
        vouchers integer NOT NULL DEFAULT 0,
        channel_id text,
        at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    // analytics-query (src/index): the operator's saved queries, callable by number, and each paid
    // execution's result, fetched again free until it expires. `result` is the result's JSON text.
    version: 8,
    sql: `
      CREATE TABLE analytics_saved_queries (
        id serial PRIMARY KEY,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        sql text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE analytics_executions (
        id text PRIMARY KEY,
        chain text NOT NULL,
        network text NOT NULL,
        sql text NOT NULL,
        saved_query_id integer,
        indexed_block bigint,
        result text NOT NULL,
        executed_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX analytics_executions_expires_idx ON analytics_executions (expires_at);
    `,
  },
  {
    // Bazaar snapshots (src/bazaar): one row per snapshot run, and one row per listing and snapshot.
    // A day has at most one complete snapshot; a later complete run of the same day supersedes the
    // earlier one, which is kept (the whole history stays). `body` is the normalized listing as JSON
    // text; the typed columns are copies for lookups by listing and by seller.
    version: 9,
    sql: `
      CREATE TABLE bazaar_snapshots (
        id bigserial PRIMARY KEY,
        day date NOT NULL,
        state text NOT NULL CHECK (state IN ('running', 'complete', 'superseded', 'failed')),
        sources text NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        listings integer NOT NULL DEFAULT 0,
        malformed integer NOT NULL DEFAULT 0,
        duplicates integer NOT NULL DEFAULT 0,
        pages integer NOT NULL DEFAULT 0,
        detail text
      );
      CREATE UNIQUE INDEX bazaar_snapshots_one_per_day ON bazaar_snapshots (day) WHERE state = 'complete';
      CREATE TABLE bazaar_listings (
        snapshot_id bigint NOT NULL REFERENCES bazaar_snapshots (id) ON DELETE CASCADE,
        key text NOT NULL,
        category text NOT NULL,
        pay_to text NOT NULL,
        network text NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (snapshot_id, key)
      );
      CREATE INDEX bazaar_listings_key_idx ON bazaar_listings (key);
      CREATE INDEX bazaar_listings_pay_to_idx ON bazaar_listings (pay_to);
    `,
  },
  {
    // settlement_verify's answers (src/products/payments/settlement-verify), kept for
    // x402_receipt_lookup: `record` is the verification's JSON text, the typed columns copies for lookups.
    version: 10,
    sql: `
      CREATE TABLE settlement_verifications (
        id text PRIMARY KEY,
        network text NOT NULL,
        transaction text NOT NULL,
        record text NOT NULL,
        verified_at timestamptz NOT NULL
      );
      CREATE INDEX settlement_verifications_tx_idx ON settlement_verifications (network, transaction);
    `,
  },
  {
    // The ledger's `out` direction: what the operator's wallet pays upstream x402 sellers (service
    // gateway, fetch_x402_content), one row per upstream payment, linked to the caller's payment
    // (`payments.payment_key`; none on a free-tier call). A row is written before anything is signed
    // and carries the signed authorization's nonce before it is sent, so a crash loses no record.
    // `operator_spend` holds each UTC day's reserved total: the daily cap is one conditional upsert.
    version: 11,
    sql: `
      CREATE TABLE ledger_out (
        id text PRIMARY KEY,
        direction text NOT NULL DEFAULT 'out' CHECK (direction = 'out'),
        state text NOT NULL CHECK (state IN ('reserved', 'signed', 'settled', 'released', 'unknown')),
        product text NOT NULL,
        caller_payment_key text,
        caller text,
        resource text NOT NULL,
        network text NOT NULL,
        scheme text NOT NULL,
        asset text NOT NULL,
        pay_to text NOT NULL,
        amount numeric(78, 0) NOT NULL,
        payer text NOT NULL,
        nonce text,
        valid_before bigint,
        tx_hash text,
        detail text,
        day date NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        settled_at timestamptz
      );
      CREATE INDEX ledger_out_caller_idx ON ledger_out (caller_payment_key);
      CREATE INDEX ledger_out_day_idx ON ledger_out (day);
      CREATE INDEX ledger_out_open_idx ON ledger_out (valid_before) WHERE state IN ('signed', 'unknown');
      CREATE TABLE operator_spend (
        day date PRIMARY KEY,
        reserved numeric(78, 0) NOT NULL
      );
    `,
  },
  {
    // Settled calls of the tools with their own observatory block (src/store/tool-usage.ts): the
    // category-heat feed's polls (cursor as a digest) and reprice_regret's queries, one row each.
    version: 12,
    sql: `
      CREATE TABLE feed_polls (
        id bigserial PRIMARY KEY,
        feed_version text NOT NULL,
        payer text NOT NULL,
        self_test boolean NOT NULL,
        since_snapshot bigint,
        cursor_digest text,
        polled_at timestamptz NOT NULL
      );
      CREATE INDEX feed_polls_version_idx ON feed_polls (feed_version, polled_at);
      CREATE TABLE reprice_queries (
        id bigserial PRIMARY KEY,
        payer text NOT NULL,
        self_test boolean NOT NULL,
        resource_url text,
        seller_pay_to text,
        window_days integer NOT NULL,
        page integer NOT NULL,
        queried_at timestamptz NOT NULL
      );
      CREATE INDEX reprice_queries_at_idx ON reprice_queries (queried_at);
    `,
  },
  {
    // The request a payment paid for (PaymentGate.reservationFor): its result is redeemed only by the
    // same request. Rows from before have none and redeem as before.
    version: 13,
    sql: `ALTER TABLE payments ADD COLUMN request_digest text;`,
  },
];

/** Arbitrary constant identifying percall's migration lock. */
export const MIGRATION_LOCK_ID = 4021_0001;
