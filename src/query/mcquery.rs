use tokio::time::Instant;

use super::{Request, Session};
use crate::status::{Failure, Reason, Status};

pub(super) async fn poll(
    _req: &Request,
    _session: &mut Session,
    _deadline: Instant,
) -> Result<Status, Failure> {
    Err(Failure::new(
        Reason::Malformed,
        "mcquery: not implemented yet",
    ))
}
