import { showBackendBadge } from '../workers/backend.js';

showBackendBadge(null);
