/**
 * The worked example: published as the product's input and output examples, and what
 * GET /api/v1/run-python/example shows. EXAMPLE_OUTPUT is a real run's answer, captured with the
 * sandbox (python3 3.11.2, pandas 1.5.3); the door shows this instance's own run of EXAMPLE_INPUT.
 */
export const EXAMPLE_INPUT = {
  code: [
    'import pandas as pd',
    "df = pd.read_csv('sales.csv')",
    "summary = df.groupby('region')['amount'].agg(['count', 'sum', 'mean']).round(2)",
    'print(summary.to_string())',
    "summary.to_csv('out/summary.csv')",
  ].join('\n'),
  files: [{ name: 'sales.csv', content: 'region,amount\neast,120.5\nwest,80\neast,99.5\nnorth,42\nwest,20\n', encoding: 'utf8' }],
};

export const EXAMPLE_OUTPUT = {
  stdout: '        count    sum   mean\nregion                     \neast        2  220.0  110.0\nnorth       1   42.0   42.0\nwest        2  100.0   50.0\n',
  stdout_truncated: false,
  stderr: '',
  stderr_truncated: false,
  exit_code: 0,
  duration_ms: 2397,
  timed_out: false,
  memory_exceeded: false,
  artifacts: [
    {
      name: 'summary.csv',
      content_type: 'text/csv; charset=utf-8',
      size: 77,
      base64: 'cmVnaW9uLGNvdW50LHN1bSxtZWFuCmVhc3QsMiwyMjAuMCwxMTAuMApub3J0aCwxLDQyLjAsNDIuMAp3ZXN0LDIsMTAwLjAsNTAuMAo=',
    },
  ],
  artifacts_skipped: [],
  python_version: '3.11.2',
};
