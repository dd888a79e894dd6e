import 'reflect-metadata';
import './support';
import { startApp } from '../src/app';
import { loadConfig } from '../src/config';
import { report } from './support';

/** Our server as a bench child: configured by environment like `npm start`, reporting when ready. */
startApp(loadConfig())
  .then((app) => {
    report('READY', { url: app.url, pid: process.pid });
    process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
  })
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
