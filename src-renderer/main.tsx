import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Overview } from './features/overview/Overview';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Overview />
  </StrictMode>,
);
