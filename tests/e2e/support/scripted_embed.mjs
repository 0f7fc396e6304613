// The set-up the API tests with a scripted model share: the built site and one Chromium for the
// test file (registered as its `before` / `after`), and a page of a context with tabloop loaded
// and `window.scriptedProvider` defined.
import { before, after } from 'node:test';
import { startEmbedSuite, stopEmbedSuite, openEmbed } from './embed.mjs';
import { installScriptedModel } from './page_model.mjs';

/** Registers the file's set-up; read `suite.browser` inside tests, and `suite.open(context)`. */
export function useScriptedEmbed() {
  const suite = {
    /** A new page of `context` on the embedding page, with the scripted model installed. */
    async open(context) {
      const page = await openEmbed(context, suite.site);
      await installScriptedModel(page);
      return page;
    },
  };
  before(async () => Object.assign(suite, await startEmbedSuite()));
  after(() => stopEmbedSuite(suite));
  return suite;
}
