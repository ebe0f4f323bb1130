import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { startBoard } from './board.js';
import './styles.css';

startBoard();
const root = document.getElementById('root');
if (root === null) throw new Error('index.html lacks #root');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
