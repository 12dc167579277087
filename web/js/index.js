import { showBackendBadge } from './backend.js';

showBackendBadge(null);
