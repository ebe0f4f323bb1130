/**
 * The server-render entry (`vite build --ssr`, see web/vite.config.ts): the supervisor loads
 * the built file and renders the board with the very components the browser then hydrates,
 * so there is one source of truth for the markup. Only the board is rendered here; the other
 * pages fetch their content after mounting, so their server markup would be an empty frame.
 */
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import type { PageRenderer } from '../../src/api/web.js';
import { App } from './App.js';
import { seedBoard } from './board.js';
import { parse } from './router.js';

export const renderPage: PageRenderer['renderPage'] = (path, snapshot, options = {}) => {
  if (parse(path).page !== 'board') return undefined;
  // renderToString is synchronous, so seeding the module's store cannot interleave with another request.
  seedBoard(snapshot, options);
  return renderToString(
    <StrictMode>
      <App />
    </StrictMode>,
  );
};
