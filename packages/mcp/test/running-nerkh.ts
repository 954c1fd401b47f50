/** The client package's running nerkh (a real in-process service on a local socket), shared by these tests. */
export { type RunningNerkh, startNerkh } from '../../client/test/running-nerkh.ts';
