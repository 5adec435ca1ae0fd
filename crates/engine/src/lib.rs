//! tamarin
