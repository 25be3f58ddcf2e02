
+projects/demo/databases/(default)/documents7

orders	

d:n	
total	
total:mean