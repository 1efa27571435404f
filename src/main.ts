import { loadConfig } from './config.ts';
import { createLogger, routeConsoleToLogger } from './log.ts';
import { startService } from './runtime.ts';

const HELP = `percall: pay-per-call HTTP API and MCP server for machines (x402, USDC)

usage:
  percall start                         run the service (dev chain + local facilitator by default)
  percall pay [METHOD] URL [--json BODY] [--network evm|solana] [--scheme exact|upto] [--rail x402|mpp]
                                        pay a route with the official clients and print the result
  percall research register|evaluate|abandon|list   the operator's research log (needs ADMIN_TOKEN)
  percall catalogue [ID|TOOL] [--json]  the products as declared: the whole table, or one product with its schemas
  percall index backfill --chain CHAIN --from N [--to M] | status
                                        the block index: backfill a block range (progress: blocks/s, rows/s, ETA), or its status
  percall bazaar snapshot | runs        take a Bazaar snapshot of BAZAAR_DISCOVERY_URLS now (progress bar), or list the runs
  percall queries add|list|remove       the saved analytics queries (analytics-query by number; add/remove need ADMIN_TOKEN)

Configuration is read from the environment; see README.md.`;

async function start(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  routeConsoleToLogger(log);
  const service = await startService({ config, log, persistChain: true });
  if (service.dev) {
    const d = service.dev;
    process.stdout.write(
      [
        '',
        `percall (dev) listening on ${d.baseUrl}`,
        `  network   ${d.network} (chain id ${d.chainId}, rpc ${d.rpcUrl})`,
        `  asset     ${d.asset} (test USDC)`,
        `  payTo     ${d.payTo}`,
        `  buyer     ${d.buyerAddress} (key in ${config.dataDir}/dev.json; Permit2 approved for upto)`,
        ...(service.solanaDev
          ? [
              `  solana    ${service.solanaDev.network} (in-process VM, rpc ${service.solanaDev.rpcUrl})`,
              `            mint ${service.solanaDev.mint}, payTo ${service.solanaDev.payTo}, buyer ${service.solanaDev.buyerAddress} (${config.dataDir}/dev-solana.json)`,
            ]
          : []),
        `  mpp       on the routes marked mpp (WWW-Authenticate: Payment, evm charge)`,
        ...(service.index ? [`  index     ${[...service.index.chains()].map(([c, n]) => `${c} (${n})`).join(', ')} from genesis into ${config.index.path ?? `${config.dataDir}/index.duckdb`} (analytics-query)`] : []),
        '',
        `try: npx percall pay GET ${d.baseUrl}/api/v1/paid/time`,
        ...(service.solanaDev ? [`     npx percall pay GET ${d.baseUrl}/api/v1/paid/time --network solana`] : []),
        `     npx percall pay POST ${d.baseUrl}/api/v1/paid/endpoint-task-evaluation --json '{"target_url":"https://example.com"}' --rail mpp`,
        '',
      ].join('\n'),
    );
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

async function main(argv: string[]): Promise<number | undefined> {
  const [command = 'start', ...rest] = argv;
  switch (command) {
    case 'start':
      await start();
      return undefined;
    case 'pay':
      // Commands load their modules when run: the paying clients stay out of a running service.
      return (await import('./client/pay-command.ts')).runPayCommand(rest);
    case 'research':
      return (await import('./client/research-command.ts')).runResearchCommand(rest);
    case 'catalogue':
      return (await import('./catalogue/catalogue-command.ts')).runCatalogueCommand(rest);
    case 'index':
      return (await import('./index/index-command.ts')).runIndexCommand(rest);
    case 'bazaar':
      return (await import('./bazaar/bazaar-command.ts')).runBazaarCommand(rest);
    case 'queries':
      return (await import('./index/queries-command.ts')).runQueriesCommand(rest);
    case 'help':
    case '--help':
    case '-h':
      console.log(HELP);
      return 0;
    default:
      console.error(`unknown command ${command}\n\n${HELP}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
