/**
 * The app proper, loaded by main.tsx once the page has painted: React, the router and every
 * view. A board that arrived rendered by the supervisor (src/server/web-page.ts) is adopted
 * (hydrated) rather than rebuilt; every other page starts empty and renders here.
 */
import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './App.js';
import { seedBoardFromPage, startBoard } from './board.js';

seedBoardFromPage();
startBoard();
const root = document.getElementById('root');
if (root === null) throw new Error('index.html lacks #root');
const app = (
  <StrictMode>
    <App />
  </StrictMode>
);
if (root.firstElementChild !== null) hydrateRoot(root, app);
else createRoot(root).render(app);
