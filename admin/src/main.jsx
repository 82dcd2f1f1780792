// The admin's entry: reads what the server put in the page (admin-page.ts) and renders the app into it.
import React from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.jsx';

const element = document.getElementById('admin');
createRoot(element).render(<App config={JSON.parse(element.dataset.config)} />);
