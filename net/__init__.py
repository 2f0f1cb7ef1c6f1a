"""Everything that touches the network (issue 3): wire codec, transport, discovery, consensus, clock."""
