/**
 * A small labelled set for keyword extraction: short English documents on distinct subjects, each
 * with the key phrases a reader would tag it with (written from the text, before any engine ran).
 * The tests measure precision@5 of each engine against it: a predicted keyword counts when it
 * equals a label (plurals folded), or, being a phrase of two words or more, contains a label or is
 * contained in one as whole words (a lone word gets no partial credit: `coral` is not `coral reefs`).
 */
export const LABELLED_DOCUMENTS: readonly { text: string; labels: readonly string[] }[] = [
  {
    text: `The x402 protocol revives the HTTP 402 Payment Required status code. A server that wants payment answers 402 with its payment requirements: the network, the asset, the amount and the recipient. The client signs a stablecoin payment, usually USDC, and retries the request with the payment attached. A facilitator verifies the signature and settles the payment on chain. Because no account or API key is needed, x402 suits autonomous agents that pay per call.`,
    labels: ['x402 protocol', 'http 402', 'payment requirements', 'stablecoin payment', 'usdc', 'facilitator', 'autonomous agents', 'api key'],
  },
  {
    text: `Coral reefs cover less than one percent of the ocean floor but shelter a quarter of all marine species. Rising sea temperatures cause coral bleaching: stressed corals expel the algae that feed them and turn white. Repeated bleaching events leave reefs too weak to recover. Ocean acidification, driven by carbon dioxide dissolving in seawater, slows the growth of coral skeletons. Marine biologists now grow heat-tolerant corals in nurseries to restore damaged reefs.`,
    labels: ['coral reefs', 'coral bleaching', 'marine species', 'sea temperatures', 'ocean acidification', 'carbon dioxide', 'marine biologists', 'heat-tolerant corals'],
  },
  {
    text: `Sourdough bread rises without commercial yeast. Bakers keep a starter, a mixture of flour and water colonised by wild yeast and lactic acid bacteria. The bacteria produce lactic and acetic acids that give sourdough its sour flavour and help the bread keep longer. A long, cold fermentation develops flavour and makes the gluten easier to digest. Bakers score the dough before baking so the loaf expands evenly in the oven.`,
    labels: ['sourdough bread', 'starter', 'wild yeast', 'lactic acid bacteria', 'fermentation', 'gluten', 'dough', 'commercial yeast'],
  },
  {
    text: `PostgreSQL uses multiversion concurrency control, so readers never block writers. Every update writes a new row version, and the vacuum process later reclaims dead tuples. Without regular vacuuming, tables bloat and transaction ID wraparound can force the database into read-only mode. Autovacuum runs in the background and is tuned per table. Indexes also accumulate dead entries, which vacuum removes as well.`,
    labels: ['postgresql', 'multiversion concurrency control', 'vacuum', 'dead tuples', 'autovacuum', 'transaction id wraparound', 'row version', 'indexes'],
  },
  {
    text: `The Mars rover Perseverance landed in Jezero Crater in February 2021. The crater once held a lake, and the rover studies its ancient river delta for signs of past microbial life. Perseverance collects rock samples in sealed tubes that a future mission will return to Earth. It also carried Ingenuity, a small helicopter that made the first powered flight on another planet. The rover's MOXIE instrument produced oxygen from the carbon dioxide atmosphere.`,
    labels: ['perseverance', 'mars rover', 'jezero crater', 'river delta', 'microbial life', 'rock samples', 'ingenuity', 'moxie'],
  },
  {
    text: `Type 2 diabetes develops when the body becomes resistant to insulin and the pancreas cannot keep blood sugar in range. Risk factors include obesity, physical inactivity and family history. Many patients first manage the disease with diet and exercise, then with metformin. Poorly controlled blood glucose damages blood vessels and nerves, raising the risk of heart disease, kidney failure and vision loss. Regular HbA1c tests track long-term glucose control.`,
    labels: ['type 2 diabetes', 'insulin', 'blood sugar', 'blood glucose', 'metformin', 'risk factors', 'heart disease', 'hba1c'],
  },
  {
    text: `Electric vehicles store energy in lithium-ion battery packs. Battery capacity, measured in kilowatt-hours, largely sets the driving range. Fast chargers deliver direct current at up to 350 kilowatts, refilling most of a battery in half an hour, while home chargers use slower alternating current overnight. Cold weather reduces range because the battery chemistry slows and the cabin must be heated. Regenerative braking recovers energy when the car slows down.`,
    labels: ['electric vehicles', 'lithium-ion battery', 'battery capacity', 'driving range', 'fast chargers', 'regenerative braking', 'direct current', 'kilowatt-hours'],
  },
  {
    text: `The Treaty of Westphalia ended the Thirty Years' War in 1648. Negotiated in the cities of Osnabrück and Münster, the peace settled religious conflicts between Catholic and Protestant states of the Holy Roman Empire. Historians often credit Westphalia with establishing state sovereignty: each ruler governs his own territory without outside interference. The treaty also recognised the independence of the Dutch Republic and the Swiss Confederation.`,
    labels: ['treaty of westphalia', "thirty years' war", 'state sovereignty', 'holy roman empire', 'religious conflicts', 'dutch republic', 'swiss confederation', 'osnabrück'],
  },
  {
    text: `Rust guarantees memory safety without a garbage collector. The borrow checker enforces ownership rules at compile time: each value has one owner, and references may not outlive the data they point to. These rules rule out data races and use-after-free bugs. When low-level control is needed, unsafe blocks let the programmer opt out of some checks. Cargo, the package manager, builds projects and fetches crates from the registry.`,
    labels: ['rust', 'memory safety', 'garbage collector', 'borrow checker', 'ownership rules', 'data races', 'unsafe blocks', 'cargo'],
  },
  {
    text: `Honeybees communicate the location of food through the waggle dance. A forager returning to the hive runs a figure-eight pattern on the comb; the angle of the waggle run relative to vertical gives the direction of the flowers relative to the sun, and its duration encodes the distance. Other workers follow the dancer and then fly out to the food source. Karl von Frisch decoded the dance and shared the 1973 Nobel Prize for it.`,
    labels: ['honeybees', 'waggle dance', 'forager', 'hive', 'food source', 'karl von frisch', 'nobel prize', 'figure-eight pattern'],
  },
];
