// Order matters: the IPC transport is installed before the dashboard starts.
import './transport';
import '../../../web/src/main.tsx';
