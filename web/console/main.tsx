// The web console's entry point: built by src/console/build-console.ts, served at /console/ by
// src/api/routes/console.ts under a CSP that allows only this origin's scripts and styles.
import { render } from 'preact';
import { App } from './app';
import './style.css';

render(<App />, document.getElementById('app')!);
