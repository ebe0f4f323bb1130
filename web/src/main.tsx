import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './App.js';
import { seedBoardFromPage, startBoard } from './board.js';
import './styles.css';

seedBoardFromPage();
startBoard();
const root = document.getElementById('root');
if (root === null) throw new Error('index.html lacks #root');
const app = (
  <StrictMode>
    <App />
  </StrictMode>
);
// A logged-in board arrives rendered by the supervisor (src/server/web-page.ts): adopt that
// markup rather than rebuild it. Every other page starts empty and renders here.
if (root.firstElementChild !== null) afterFirstPaint(() => hydrateRoot(root, app));
else createRoot(root).render(app);

/**
 * Hydrating a full board is one long task (React does not slice it), and run straight after
 * parsing it would come before the first paint. A frame callback runs just before that paint,
 * a timeout queued from it just after. The timer covers a tab opened in the background, which
 * gets no frames until shown.
 */
function afterFirstPaint(run: () => void): void {
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    run();
  };
  requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, 500);
}
