import { describe, expect, it } from 'vitest';
import { embedSnippet } from '../../web/src/embed.ts';

describe('embedSnippet', () => {
  it('is a div naming the booking page and the async embed script of the site', () => {
    expect(embedSnippet('http://localhost:3000/book/ada/intro', 'http://localhost:3000/')).toBe(
      '<div data-scheduling-embed="http://localhost:3000/book/ada/intro"></div>\n' +
        '<script async src="http://localhost:3000/embed.js"></script>',
    );
  });

  it('escapes what could end the attribute', () => {
    const snippet = embedSnippet('https://x.test/book/a/b?key=1&x="><script>', 'https://x.test');
    expect(snippet).toContain('data-scheduling-embed="https://x.test/book/a/b?key=1&amp;x=&quot;&gt;&lt;script&gt;"');
    expect(snippet.match(/<script/g)).toHaveLength(1);
  });
});
