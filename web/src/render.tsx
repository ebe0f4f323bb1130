/**
 * The server-render entry (`vite build --ssr`, see web/vite.config.ts): the supervisor loads
 * the built file and renders the board, the inbox and a session's page with the very components
 * the browser then hydrates, so there is one source of truth for the markup. Those three hold
 * what needs answering (questions, approvals, their reply and decide forms), so they work even
 * without JavaScript; what they fetch after mounting (the transcript, the inbox's context) does
 * not. The dispatch form is left to the browser.
 */
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import type { PageRenderer } from '../../src/api/web.js';
import { App } from './App.js';
import { seedBoard } from './board.js';
import { parse, setServerPath } from './router.js';

export const renderPage: PageRenderer['renderPage'] = (path, snapshot, options = {}) => {
  // The dispatch form, the review pages, Landing, Routines, Cost, Search, Tasks and Attempts are the browser's: they hold nothing a person must answer.
  if (
    [
      'dispatch',
      'review',
      'review-group',
      'landing',
      'routines',
      'cost',
      'search',
      'tasks',
      'attempts',
      'attempt',
      'fanout',
    ].includes(parse(path).page)
  )
    return undefined;
  // renderToString is synchronous, so seeding the module's stores cannot interleave with another request.
  seedBoard(snapshot, options);
  setServerPath(path);
  return renderToString(
    <StrictMode>
      <App />
    </StrictMode>,
  );
};
