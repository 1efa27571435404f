import { expect } from 'vitest';

/** An article page as a site serves it: shared by the unit test and the paid end-to-end test. */
export const ARTICLE = `<!doctype html>
<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <title>Tide tables explained | Coastal Notes</title>
  <meta name="description" content="How tides work and how to read a tide table.">
  <meta property="og:title" content="Tide tables explained">
  <meta property="og:site_name" content="Coastal Notes">
  <meta property="og:type" content="article">
  <meta property="article:published_time" content="2026-03-14T08:00:00Z">
  <link rel="canonical" href="/articles/tides">
</head>
<body>
  <nav><a href="/">Home</a> <a href="/about">About</a> <a href="/subscribe">Subscribe</a></nav>
  <article>
    <h1>Tide tables explained</h1>
    <p class="byline">By Ada Marsh</p>
    <p>Tides are the regular rise and fall of the sea, caused mostly by the Moon's gravity and, to a lesser degree, the Sun's. Most coasts see two high and two low tides every lunar day of about 24 hours and 50 minutes.</p>
    <p>A tide table lists the times and heights of high and low water for one place. Heights are given above chart datum, the level below which the tide rarely falls, so a negative height means unusually low water.</p>
    <h2>Reading the table</h2>
    <p>Find the date, then read across: each row gives a time and a height. Between the listed times the water rises or falls, fastest in the middle of the interval and slowest near high and low water, as the <a href="https://en.wikipedia.org/wiki/Rule_of_twelfths">rule of twelfths</a> describes.</p>
    <p>Spring tides, with the largest range, come shortly after new and full moon; neap tides, with the smallest, after the quarter moons. Plan shore walks around low water of a spring tide and always check the local table.</p>
  </article>
  <footer>© Coastal Notes · <a href="/privacy">Privacy</a></footer>
</body>
</html>`;

/** What web-extract must make of ARTICLE served at `${site}/old` (redirected to /articles/tides). */
export function expectTidesArticle(page: Record<string, any>, site: string): void {
  expect(page.url).toBe(`${site}/articles/tides`);
  expect(page.title).toBe('Tide tables explained');
  expect(page.content).toContain('Tides are the regular rise and fall of the sea');
  expect(page.content).toContain('Spring tides, with the largest range');
  expect(page.content).not.toContain('Subscribe');
  expect(page.markdown).toContain('## Reading the table');
  expect(page.markdown).toContain('[rule of twelfths](https://en.wikipedia.org/wiki/Rule_of_twelfths)');
  expect(page.description).toBe('How tides work and how to read a tide table.');
  expect(page.links).toEqual(expect.arrayContaining([`${site}/about`, 'https://en.wikipedia.org/wiki/Rule_of_twelfths', `${site}/privacy`]));
  expect(page.metadata).toMatchObject({
    content_type: 'text/html',
    lang: 'en-GB',
    canonical: `${site}/articles/tides`,
    site_name: 'Coastal Notes',
    published_time: '2026-03-14T08:00:00Z',
    open_graph: { title: 'Tide tables explained', type: 'article' },
  });
}
