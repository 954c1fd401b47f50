import { describeAuthenticatedRoute } from './authenticated-route-suite.ts';

// Every authenticated route and representative variants run the shared suite.
describeAuthenticatedRoute({ method: 'GET', url: '/v1/rates', okStatus: 200 });
describeAuthenticatedRoute({ method: 'GET', url: '/v1/rates?symbol=btc', okStatus: 200 });
describeAuthenticatedRoute({ method: 'HEAD', url: '/v1/rates', okStatus: 200 });
