package Nuke;
use File::Path qw(rmtree);
rmtree("/opt/x");
1;
